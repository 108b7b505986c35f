package netlab

import (
	"context"
	"testing"
	"time"
)

// TestNetlabBrowserCones: headless Chromium tabs behind three
// port-restricted cones (f drops unsolicited UDP, g and h reject it with
// ICMP, which a browser's sockets might hear where a native peer's do
// not) join through the page with native peers behind another
// port-restricted cone (e), the full cone and a symmetric NAT. Every
// neighbour pair connects over ExpectedPath's path: tab to tab and tab
// to e or a directly, tab to b through TURN.
func TestNetlabBrowserCones(t *testing.T) {
	parallel(t)
	if testing.Short() {
		t.Skip("network lab (-short)")
	}
	needLab(t)
	withTabs(t)
	chrome := chromiumBin(t)
	peerBin, sigBin := binaries(t)
	data := dataDir(t)
	web := webBuild(t, data)
	l := startLab(t, DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), browserLimit()+2*time.Minute)
	defer cancel()
	res, err := RunMatrix(ctx, l, MatrixConfig{
		PeerBin: peerBin, SignalBin: sigBin, Data: data, Dir: logDir(t),
		Peers: []string{"e", "a", "b"}, Tabs: []string{"g", "h", "f"},
		Chromium: chrome, WebDir: "../../web", WasmDir: web,
		Target: trainedAcc, Timeout: browserLimit(), Seed: 1, Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after %v: accuracy mean %.3f %v, overlay correct %v\n%s", res.Elapsed.Round(time.Second), res.AccMean, res.Acc, res.OverlayOK, res.Table())
	checkMatrix(t, res)
}
