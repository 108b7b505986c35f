package netlab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestNetlabLANDemo: `peerlearn demo -lan` on home a's host, and a
// phone-sized Chromium on the same LAN (no media permission) opening the
// printed https join URL, trusting only the certificate whose SPKI the
// demo printed. The tab shows the join QR code, becomes a member and has
// a direct link to the demo's native peers.
func TestNetlabLANDemo(t *testing.T) {
	parallel(t)
	if testing.Short() {
		t.Skip("network lab (-short)")
	}
	needLab(t)
	chrome := chromiumBin(t)
	peerBin, sigBin := binaries(t)
	data := dataDir(t)
	web := webBuild(t, data)
	l := startLab(t, DefaultConfig())
	h := l.Home("a")
	dir := t.TempDir()
	webAbs, _ := filepath.Abs("../../web")
	demo, err := StartProc(h.Host, dir, "demo", peerBin, []string{"demo", "-lan", "-addr", "0.0.0.0:8443",
		"-peers", "3", "-target", "0.99", "-limit", "3m", "-every", "2s", "-data", data, "-web", webAbs, "-wasm", web,
		"-out", filepath.Join(dir, "out"), "-signalserver", sigBin}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer demo.Stop()
	var join, spki string
	waitUntil(t, "the demo's join URL and certificate", 60*time.Second, 200*time.Millisecond, func() string {
		for _, line := range demo.Lines() {
			if _, rest, ok := strings.Cut(line, "open https://"); ok {
				join = "https://" + strings.Fields(rest)[0]
			}
			if _, rest, ok := strings.Cut(line, "tls-spki sha256-base64="); ok {
				spki = strings.Fields(rest)[0]
			}
		}
		if join == "" || spki == "" {
			return fmt.Sprintf("output:\n%s\n%s", strings.Join(demo.Lines(), "\n"), demo.Tail(3000))
		}
		return ""
	})
	if !strings.HasPrefix(join, "https://"+h.HostIP+":8443/") {
		t.Fatalf("join URL %s, want the LAN address %s", join, h.HostIP)
	}
	t.Logf("join URL %s", join)
	tab, err := OpenTab(h.Host, chrome, dir, "phone", join+"&autojoin=1", 412, 915,
		chromedp.Flag("ignore-certificate-errors-spki-list", spki))
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	waitUntil(t, "the phone tab joins", 90*time.Second, time.Second, func() string {
		qr, _ := tab.Eval(`String(document.getElementById("join-qr").naturalWidth > 0 && !document.getElementById("join-qr-box").hidden)`)
		st, ok := tab.Status()
		direct := 0
		for _, l := range st.Links {
			if l.Path == "direct" {
				direct++
			}
		}
		if ok && qr == "true" && st.State == "member" && direct > 0 {
			t.Logf("the phone tab joined: %d neighbours, %d direct links, QR code shown", len(st.Neighbors), direct)
			return ""
		}
		return fmt.Sprintf("qr %q, state %q, links %+v\n%s\ndemo:\n%s", qr, st.State, st.Links, tab.Diagnostics(3000), strings.Join(demo.Lines(), "\n"))
	})
	if _, err := os.Stat(filepath.Join(dir, "out", "cert.pem")); err != nil {
		t.Errorf("certificate not written: %v", err)
	}
}
