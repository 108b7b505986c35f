package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/peerlearn/peerlearn/protocol/method"
)

// tabSession is what the resume and controls tests read from a page.
type tabSession struct {
	ID    string `json:"id"`
	State string `json:"state"`
	Error string `json:"error"`
	Learn *struct {
		Rounds  int            `json:"rounds"`
		Samples int64          `json:"samples_trained"`
		Method  *method.Status `json:"method"` // every method but FedLay's
	} `json:"learn"`
	Controls struct {
		Paused  bool    `json:"paused"`
		Share   float64 `json:"share"`
		Parked  bool    `json:"parked"`
		Reason  string  `json:"reason"`
		GivenMS int64   `json:"given_ms"`
		BusyMS  int64   `json:"busy_ms"`
		RestMS  int64   `json:"rest_ms"`
	} `json:"controls"`
	// Of web/resume.js (window.peerlearnResume).
	Restored *struct {
		ID    string `json:"id"`
		Round int    `json:"round"`
	} `json:"restored"`
	AgainMS    float64  `json:"againMS"`
	SavedRound int      `json:"savedRound"`
	Refused    []string `json:"refused"`
	Records    []struct {
		Task        string `json:"task"`
		ID          string `json:"id"`
		Round       int    `json:"round"`
		MethodRound int    `json:"method_round"`
	} `json:"records"`
	SnapRound int     `json:"snapRound"` // the round of the session the peer would save now (-1: none)
	Seed      string  `json:"seed"`
	Now       float64 `json:"now"` // performance.now()
}

func (s tabSession) rounds() int {
	if s.Learn == nil {
		return -1
	}
	return s.Learn.Rounds
}

// readSession reads the page's peer status, web/resume.js's state and
// the IndexedDB records.
func readSession(tb *tab) (tabSession, error) {
	js, err := evalJS[string](tb, `(async () => {
		const r = window.peerlearnResume || {};
		const recs = r.all ? await r.all() : [];
		return JSON.stringify({
			...(window.peerlearnPeer ? window.peerlearnPeer.status() : {}),
			restored: r.restored || null, againMS: r.againMS || 0, savedRound: r.savedRound ?? -1, refused: r.refused || [],
			records: recs.map((x) => ({ task: x.task, id: x.id, round: x.round, method_round: x.method_round || 0 })),
			snapRound: window.peerlearnPeer && window.peerlearnPeer.exportState() ? window.peerlearnPeer.exportState().round : -1,
			seed: sessionStorage.getItem("peerlearn-seed") || "", now: performance.now(),
		});
	})()`)
	if err != nil {
		return tabSession{}, err
	}
	var s tabSession
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		return tabSession{}, err
	}
	if s.State == "failed" {
		return s, fmt.Errorf("%s failed: %s", tb.name, s.Error)
	}
	return s, nil
}

// reopenTab leaves tb's page (for about:blank, as if it had crashed or
// been closed) and opens url in a new tab of the same browser, as a
// volunteer reopens the page: the new page has an empty sessionStorage
// but the browser's IndexedDB. (tb's target stays, blank: it owns the
// browser in chromedp.)
func reopenTab(t *testing.T, tb *tab, url string) *tab {
	t.Helper()
	leavePage(t, tb)
	return newTabIn(t, tb, url)
}

// leavePage navigates tb to about:blank.
func leavePage(t *testing.T, tb *tab) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("%s: leave the page: %v", tb.name, err)
	}
}

// newTabIn opens url in a new tab of tb's browser and shows it.
func newTabIn(t *testing.T, tb *tab, url string) *tab {
	t.Helper()
	nctx, ncancel := chromedp.NewContext(tb.ctx, chromedp.WithNewWindow(false))
	nt := &tab{name: tb.name + "-reopened", ctx: nctx, cancel: ncancel}
	t.Cleanup(nt.close)
	// The first action makes the tab, which lives as long as that
	// action's context: nctx itself, bounded here by a timer.
	opened := make(chan error, 1)
	go func() { opened <- chromedp.Do(nctx, chromedp.Navigate("about:blank")) }()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("open a new tab: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no new tab in 30 s")
	}
	start, cancelStart := context.WithTimeout(nctx, 60*time.Second)
	defer cancelStart()
	if err := chromedp.Do(start, chromedp.Navigate(url), chromedp.WaitReady("#join")); err != nil {
		t.Fatalf("load %s in a new tab: %v", url, err)
	}
	if _, err := chromedp.CallBrowser(nctx, target.ActivateTarget, target.ActivateTargetParams{TargetID: chromedp.FromContext(nctx).Target.TargetID}); err != nil {
		t.Fatal(err)
	}
	return nt
}

func reloadTab(t *testing.T, tb *tab) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitReady("#join")); err != nil {
		t.Fatalf("%s: reload: %v", tb.name, err)
	}
}

// resumeAfterReload joins a tab to srv's task, waits until the tab has
// kept a session of at least 2 rounds in IndexedDB, reloads it and
// waits until it trains again. It checks the resume (same ID, the round
// count going on from the saved one) and returns the tab, the saved
// round and the seconds from the reload's navigation to the first round
// the resumed peer finished (resume_s).
func resumeAfterReload(t *testing.T, bin string, srv e2eServer) (*tab, int, float64) {
	t.Helper()
	tb := joinTab(t, bin, "tab", srv, "shard=1/6&evalEvery=2000&evalSamples=500", nil)
	var before tabSession
	waitUntil(t, "the tab keeps a session of 2 rounds", 90*time.Second, 300*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err != nil {
			return err.Error()
		}
		before = s
		if len(s.Records) != 1 || s.Records[0].Round < 2 || s.Records[0].ID != s.ID {
			return fmt.Sprintf("records %+v, rounds %d", s.Records, s.rounds())
		}
		return ""
	})
	saved := before.Records[0].Round
	reloadTab(t, tb)
	var after tabSession
	waitUntil(t, "the reloaded tab trains again", 90*time.Second, 200*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err != nil {
			return err.Error()
		}
		after = s
		if r := s.rounds(); r >= 0 && r < saved {
			t.Fatalf("the reloaded tab counts %d rounds, below the saved %d: the count restarted", r, saved)
		}
		if s.Restored == nil || s.AgainMS == 0 {
			return fmt.Sprintf("restored %+v, again %.0f ms, rounds %d, state %s", s.Restored, s.AgainMS, s.rounds(), s.State)
		}
		return ""
	})
	if after.ID != before.ID || after.Restored.ID != before.ID {
		t.Fatalf("after the reload the peer is %s (restored %s), before it was %s", after.ID, after.Restored.ID, before.ID)
	}
	if after.Restored.Round != saved || after.rounds() <= saved {
		t.Fatalf("restored round %d (saved %d), now %d rounds", after.Restored.Round, saved, after.rounds())
	}
	if after.Controls.GivenMS < before.Controls.GivenMS/2 {
		t.Errorf("time given %d ms after the reload, %d ms before: not kept", after.Controls.GivenMS, before.Controls.GivenMS)
	}
	return tb, saved, after.AgainMS / 1000
}

// resumeSeconds is bench-browser's resume_s: a tab of e2eSpec's task
// (MLP, a round every 2 s) reloaded after it kept a session, the seconds
// from the reload's navigation to the first round it finished after the
// saved one.
func resumeSeconds(t *testing.T, bin, data string) float64 {
	t.Helper()
	_, sigBin, wasmDir := build(t, data)
	srv := startE2EServer(t, sigBin, wasmDir)
	tb, _, secs := resumeAfterReload(t, bin, srv)
	tb.close()
	return secs
}

// TestBrowserResume: a tab that trained is back, after a reload, with
// the same ID, its round count going on from the one it saved, and
// training; so is the page reopened in a new tab of the browser (after
// a crash: no sessionStorage, the key from IndexedDB); a damaged saved session is named and dropped, and the tab
// starts afresh under the same key; "Forget me" leaves and clears the
// key, model and round, and a reload then joins nothing by itself.
func TestBrowserResume(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	data := dataDir(t)
	_, sigBin, wasmDir := build(t, data)
	srv := startE2EServer(t, sigBin, wasmDir)
	tb, saved, secs := resumeAfterReload(t, bin, srv)
	t.Logf("resumed at round %d, training again %.1f s after the reload (resume_s)", saved, secs)

	// A crash, or the tab closed: a new tab of the same browser (no
	// sessionStorage: the key comes from IndexedDB) is back with the same
	// ID, going on from the round saved last.
	s0, err := readSession(tb)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "a session saved after the resume", 60*time.Second, 300*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err == nil && len(s.Records) == 1 && s.Records[0].Round > saved {
			s0 = s
			return ""
		}
		return fmt.Sprintf("%+v %v", s.Records, err)
	})
	url := fmt.Sprintf("%s/?task=%s&shard=1/6&evalEvery=2000&evalSamples=500", srv.origin, srv.tid.Hex())
	// While the tab runs its session, a second tab of the browser does
	// not resume it (one ID twice): the task's Web Lock is held.
	sib := newTabIn(t, tb, url)
	waitUntil(t, "a second tab leaves the session to the first", 30*time.Second, 300*time.Millisecond, func() string {
		note, err := evalJS[string](sib, `document.getElementById("session-note").textContent`)
		if err == nil && strings.Contains(note, "another tab") {
			return ""
		}
		return fmt.Sprintf("note %q %v", note, err)
	})
	if joined, err := evalJS[bool](sib, `!!window.peerlearnPeer`); err != nil || joined {
		t.Fatalf("the second tab joined (%v, %v)", joined, err)
	}
	leavePage(t, sib)
	tb = reopenTab(t, tb, url)
	waitUntil(t, "the reopened tab trains again", 90*time.Second, 300*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err != nil {
			return err.Error()
		}
		if s.Restored == nil || s.AgainMS == 0 {
			return fmt.Sprintf("restored %+v, rounds %d, state %s", s.Restored, s.rounds(), s.State)
		}
		if s.ID != s0.ID || s.Restored.Round < s0.Records[0].Round || s.rounds() <= s.Restored.Round {
			t.Fatalf("reopened: peer %.8s (was %.8s), restored round %d (saved %d), rounds %d", s.ID, s0.ID, s.Restored.Round, s0.Records[0].Round, s.rounds())
		}
		return ""
	})
	saved = s0.Records[0].Round

	// A damaged record (one byte of the model flipped: its CRC-32C no
	// longer matches) is refused with a message, dropped, and the tab
	// joins afresh with its key.
	s, err := readSession(tb)
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID
	// Paused (no round ends, so nothing new is saved over the damage)
	// once the session the peer holds is saved: a pause is not kept
	// across reloads.
	if _, err := evalJS[bool](tb, `(window.peerlearnPage.setControls({ paused: true }), true)`); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "a session saved after the resume, the tab paused", 60*time.Second, 300*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err == nil && s.Controls.Parked && len(s.Records) == 1 && s.Records[0].Round > saved && s.Records[0].Round == s.SnapRound {
			return ""
		}
		return fmt.Sprintf("parked %v, records %+v, rounds %d, %v", s.Controls.Parked, s.Records, s.rounds(), err)
	})
	if _, err := evalJS[bool](tb, `new Promise((resolve, reject) => {
		const r = indexedDB.open("peerlearn", 1);
		r.onsuccess = () => {
			const tx = r.result.transaction("sessions", "readwrite"), st = tx.objectStore("sessions");
			st.getAll().onsuccess = (e) => { const rec = e.target.result[0]; rec.model[40] ^= 0xff; st.put(rec); };
			tx.oncomplete = () => { r.result.close(); resolve(true); };
			tx.onerror = () => reject(tx.error);
		};
		r.onerror = () => reject(r.error);
	})`); err != nil {
		t.Fatalf("damage the record: %v", err)
	}
	reloadTab(t, tb)
	waitUntil(t, "the damaged session refused and the tab fresh", 90*time.Second, 300*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err != nil {
			return err.Error()
		}
		if len(s.Refused) == 0 || s.Restored != nil || s.ID != id || s.rounds() < 1 {
			return fmt.Sprintf("refused %q, restored %+v, id %.8s, rounds %d", s.Refused, s.Restored, s.ID, s.rounds())
		}
		return ""
	})
	s, _ = readSession(tb)
	if !strings.Contains(s.Refused[0], "checksum") && !strings.Contains(s.Refused[0], "crc") {
		t.Errorf("the refusal does not say what is wrong: %q", s.Refused[0])
	}
	errs, err := evalJS[[]string](tb, `window.peerlearnPage.errors`)
	if err != nil || !strings.Contains(strings.Join(errs, "\n"), "not resumed") {
		t.Errorf("the error panel does not show the refusal: %q (%v)", errs, err)
	}

	// Forget me: the tab leaves, the records and the key are gone, and a
	// reload joins nothing.
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	err = chromedp.Do(ctx, chromedp.Click("#forget"))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "forgotten", 30*time.Second, 200*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err == nil && len(s.Records) == 0 && s.Seed == "" && s.State == "left" {
			return ""
		}
		return fmt.Sprintf("records %+v, seed %q, state %s, %v", s.Records, s.Seed, s.State, err)
	})
	reloadTab(t, tb)
	waitUntil(t, "the reloaded page ready", 30*time.Second, 200*time.Millisecond, func() string {
		st, err := evalJS[string](tb, `document.getElementById("state").dataset.state`)
		if err == nil && st == "idle" {
			return ""
		}
		return fmt.Sprintf("state %q %v", st, err)
	})
	s, err = readSession(tb)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "" || s.Restored != nil || len(s.Records) != 0 {
		t.Fatalf("after forget me and a reload: peer %q, restored %+v, records %+v", s.ID, s.Restored, s.Records)
	}
}
