package netlab

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/peerlearn/peerlearn/internal/headless"
	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/peer/rtc"
)

// Tab is a headless Chromium in a home's host namespace with the page
// open. It is never granted camera or microphone, so its WebRTC host
// candidates are mDNS names, as on a volunteer's browser.
type Tab struct {
	Name    string
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	console []string // the page's first console lines
	lastErr error    // the last failed status read
}

// OpenTab starts Chromium (bin) in namespace ns through a wrapper script
// (chromedp talks to it over a pipe, which `ip netns exec` passes on)
// and loads url; dir holds the wrapper and the profile. width and height
// set the window (a phone-sized one for the LAN demo).
func OpenTab(ns, bin, dir, name, url string, width, height int, extra ...chromedp.ExecAllocatorOption) (*Tab, error) {
	wrapper := filepath.Join(dir, name+"-chromium.sh")
	script := fmt.Sprintf("#!/bin/sh\nexec ip netns exec %s %s \"$@\"\n", ns, bin)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		return nil, err
	}
	profile := filepath.Join(dir, name+"-profile")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return nil, err
	}
	opts := append(headless.Options(wrapper, profile),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		// The lab's server is on a plain-http public-looking address;
		// the page runs as it would over HTTPS.
		chromedp.Flag("unsafely-treat-insecure-origin-as-secure", "http://"+SignalAddr),
		chromedp.WindowSize(width, height),
	)
	opts = append(opts, extra...)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	tb := &Tab{Name: name, ctx: ctx, cancel: func() { cancel(); acancel() }}
	// The first action starts the browser, which lives as long as that
	// action's context: ctx itself, bounded here by a timer.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx, chromedp.Navigate("about:blank")) }()
	select {
	case err := <-started:
		if err != nil {
			tb.Close()
			return nil, fmt.Errorf("%s: start chromium: %w", name, err)
		}
	case <-time.After(60 * time.Second):
		tb.Close()
		return nil, fmt.Errorf("%s: chromium did not start in 60 s", name)
	}
	start, cstart := context.WithTimeout(ctx, 60*time.Second)
	defer cstart()
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			tb.mu.Lock()
			if len(tb.console) < 200 {
				tb.console = append(tb.console, fmt.Sprintf("%s %s", m.Type, m.Text))
			}
			tb.mu.Unlock()
		}
	}()
	if err := chromedp.Do(start, chromedp.Navigate(url), waitFor(url)); err != nil {
		tb.Close()
		return nil, fmt.Errorf("%s: load %s: %w", name, url, err)
	}
	return tb, nil
}

// Diagnostics are the page's console lines, the last failed read and
// the tail of the peer's log as the page shows it (up to n bytes; read
// with a longer bound than a status, since a page that missed its status
// reads is a busy one).
func (tb *Tab) Diagnostics(n int) string {
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	expr := fmt.Sprintf(`(document.getElementById("log") || {textContent: ""}).textContent.slice(-%d)`, n)
	log, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		log = "(not read: " + err.Error() + ")"
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return fmt.Sprintf("last error: %v\nconsole:\n%s\npeer log:\n%s", tb.lastErr, strings.Join(tb.console, "\n"), log)
}

// Close stops the browser.
func (tb *Tab) Close() {
	if tb.cancel != nil {
		tb.cancel()
		tb.cancel = nil
	}
}

// Eval runs a JavaScript expression in the tab; its value is a string.
func (tb *Tab) Eval(expr string) (string, error) {
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	defer cancel()
	b, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return "", err
	}
	var s string
	return s, json.Unmarshal(b, &s)
}

// pageView is the part of the page's peer status (wasm/status.go) the
// matrix reads.
type pageView struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	Error     string `json:"error"`
	Neighbors []struct {
		ID        string `json:"id"`
		Connected bool   `json:"connected"`
		Path      string `json:"path"`
		Local     string `json:"local"`
		Remote    string `json:"remote"`
	} `json:"neighbors"`
	Learn *struct {
		Accuracy float64 `json:"accuracy"`
		Evals    int     `json:"evals"`
	} `json:"learn"`
}

// Status reads the page's peer as a netpeer.Status: ID, state,
// neighbours, links (with the selected pair's candidate types as the
// browser reports them) and accuracy.
func (tb *Tab) Status() (netpeer.Status, bool) {
	raw, err := tb.Eval(`window.peerlearnPeer ? JSON.stringify(window.peerlearnPeer.status()) : ""`)
	if err == nil && raw == "" {
		err = fmt.Errorf("no peer on the page yet")
	}
	if err != nil {
		tb.mu.Lock()
		tb.lastErr = err
		tb.mu.Unlock()
		return netpeer.Status{}, false
	}
	var v pageView
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return netpeer.Status{}, false
	}
	st := netpeer.Status{ID: v.ID, State: v.State}
	for _, n := range v.Neighbors {
		st.Neighbors = append(st.Neighbors, n.ID)
		if n.Connected {
			st.Links = append(st.Links, rtc.Link{Peer: n.ID, Local: n.Local, Remote: n.Remote, Path: n.Path})
		}
	}
	slices.Sort(st.Neighbors)
	if v.Learn != nil && v.Learn.Evals > 0 {
		st.Learn = &netpeer.LearnStatus{Accuracy: v.Learn.Accuracy, Evals: v.Learn.Evals}
	}
	return st, v.State != "failed"
}

// waitFor is what OpenTab waits for after loading url: the page's join
// button (anything else: the document).
func waitFor(url string) chromedp.Action[chromedp.Void] {
	if strings.HasPrefix(url, "http") {
		return chromedp.WaitVisible("#join")
	}
	return chromedp.WaitReady("body")
}
