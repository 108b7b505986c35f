package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/peerlearn/peerlearn/engine/export"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// TestBrowserOwnImages: a volunteer trains on their own labelled images.
// 300 MNIST training digits are written as PNG files, black ink on white
// (as a photo or a scan would be), the label in the file name; the page
// decodes them (the form's file input), and the tab joins a native peer
// with them. It trains and exchanges models (its test accuracy far above
// chance, trainedAcc), the downloaded model decodes in nn's versioned
// format and scores far above chance natively, and the Leave button leaves the overlay gracefully. A bad
// task ID and a join without images show in the error panel.
func TestBrowserOwnImages(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	dir := dataDir(t)
	peerBin, sigBin, wasmDir := build(t, dir)
	train, test, err := data.Load(os.DirFS(dir), "mnist")
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	imgDir := t.TempDir()
	var files []string
	for i := range n {
		j := 50000 + i // not in the first shards' way: any training digits will do
		x, y := train.Sample(j)
		img := image.NewGray(image.Rect(0, 0, 28, 28))
		for p, v := range x {
			img.Pix[p] = 255 - uint8(v*255+0.5) // black ink on white paper
		}
		f := filepath.Join(imgDir, fmt.Sprintf("%d_digit%03d.png", y, i))
		w, err := os.Create(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(w, img); err != nil {
			t.Fatal(err)
		}
		w.Close()
		files = append(files, f)
	}

	srv := startE2EServer(t, sigBin, wasmDir)
	tid, taskFile, origin, sigURL := srv.tid, srv.taskFile, srv.origin, srv.sigURL
	native := startPeer(t, peerBin, "native0", sigURL, "-task", taskFile, "-data", dir, "-shard", "0/6",
		"-eval-every", "2s", "-eval-samples", "1000")
	tb := openTab(t, bin, "tab-own", origin, fmt.Sprintf("%s/?task=%s&evalEvery=1000&evalSamples=1000", origin, tid.Hex()))

	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	// A bad task ID: the error panel says why.
	if err := chromedp.Do(ctx,
		chromedp.SetValue("#task", "not-a-task"),
		chromedp.Click("#join"),
		chromedp.WaitVisible("#errors"),
	); err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text("#error-list"))
	if err != nil || !strings.Contains(msg, "task") {
		t.Fatalf("error panel: %q, %v", msg, err)
	}
	t.Logf("error panel: %q", msg)
	// Own images without any chosen: refused with a message too.
	if err := chromedp.Do(ctx,
		chromedp.Click("#errors-clear"),
		chromedp.SetValue("#task", tid.Hex()),
		chromedp.Click(`input[name="source"][value="own"]`),
		chromedp.Click("#join"),
		chromedp.WaitVisible("#errors"),
	); err != nil {
		t.Fatal(err)
	}
	if msg, _ = chromedp.Run(ctx, chromedp.Text("#error-list")); !strings.Contains(msg, "images") {
		t.Fatalf("error panel: %q", msg)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click("#errors-clear"),
		chromedp.WaitVisible("#own-files"),
		chromedp.SetUploadFiles("#own-files", files),
	); err != nil {
		t.Fatal(err)
	}
	var summary string
	waitUntil(t, fmt.Sprintf("the page decodes the %d images", n), 20*time.Second, 200*time.Millisecond, func() string {
		if summary, _ = chromedp.Run(ctx, chromedp.Text("#own-summary")); strings.HasPrefix(summary, fmt.Sprintf("%d images", n)) {
			return ""
		}
		return fmt.Sprintf("the page says %q", summary)
	})
	t.Logf("page: %q", summary)
	if err := chromedp.Do(ctx, chromedp.Click("#join")); err != nil {
		t.Fatal(err)
	}

	t0 := time.Now()
	var v peerView
	waitUntil(t, "the tab trains on its own images", 60*time.Second, time.Second, func() string {
		v, err = browserView(tb)
		if err == nil && v.Rounds >= 3 && v.Evals >= 1 && v.Accuracy >= trainedAcc && len(v.Connections) == 1 {
			return ""
		}
		return fmt.Sprintf("%+v, %v", v, err)
	})
	src, err := evalJS[string](tb, `JSON.stringify(peerlearnPeer.status().data)`)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tab trained %d rounds on its own images in %v (data %s), accuracy %.3f; linked to the native peer", v.Rounds, time.Since(t0).Round(time.Second), src, v.Accuracy)
	if !strings.Contains(src, `"source":"own"`) || !strings.Contains(src, fmt.Sprintf(`"samples":%d`, n)) {
		t.Errorf("data: %s, want %d own samples", src, n)
	}

	// The model download: nn's versioned encoding.
	b64, err := evalJS[string](tb, `peerlearnPeer.downloadModel().then((m) => {
		let s = ""; for (let i = 0; i < m.bytes.length; i += 8192) s += String.fromCharCode(...m.bytes.subarray(i, i + 8192));
		return m.name + " " + btoa(s); })`)
	if err != nil {
		t.Fatal(err)
	}
	name, enc, _ := strings.Cut(b64, " ")
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	hdr, params, err := nn.Decode(raw)
	if err != nil {
		t.Fatalf("downloaded model %s: %v", name, err)
	}
	arch, _ := nn.NewArch("mlp")
	m, err := nn.NewModel(arch)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetParams(params); err != nil {
		t.Fatalf("downloaded model %s (%s, %d params): %v", name, hdr.Arch, hdr.Count, err)
	}
	met, err := m.Evaluate(test.X[:2000*784], test.Y[:2000], 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("downloaded %s: %d bytes, %s, %d parameters, %.3f accuracy on 2000 test digits (native evaluation)", name, len(raw), hdr.Arch, hdr.Count, met.Accuracy)
	// The downloaded model is a trained one: far above chance (the tab
	// reported trainedAcc before the download; later rounds move it).
	if hdr.Arch != "mlp" || met.Accuracy < trainedAcc-0.1 {
		t.Errorf("downloaded model: %s, accuracy %.3f (want mlp above %.1f)", hdr.Arch, met.Accuracy, trainedAcc-0.1)
	}

	// The same model for other runtimes: one snapshot in three formats
	// (the three calls run before any round can finish: the tab's Go runs
	// only when JS yields). safetensors holds the .plnn's parameters
	// under PyTorch's names; ONNX is engine/export's encoding of them
	// (which TestExportExternal checks against onnxruntime).
	three, err := evalJS[string](tb, `Promise.all(["plnn", "safetensors", "onnx"].map((f) => peerlearnPeer.downloadModel(f))).then((ms) =>
		ms.map((m) => { let s = ""; for (let i = 0; i < m.bytes.length; i += 8192) s += String.fromCharCode(...m.bytes.subarray(i, i + 8192));
			return m.name + " " + btoa(s); }).join("\n"))`)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	for i, line := range strings.Split(three, "\n") {
		name, enc, _ := strings.Cut(line, " ")
		b, err := base64.StdEncoding.DecodeString(enc)
		if err != nil || !strings.HasSuffix(name, "."+[]string{"plnn", "safetensors", "onnx"}[i]) {
			t.Fatalf("download %d: %s (%v)", i, name, err)
		}
		got = append(got, b)
	}
	_, snap, err := nn.Decode(got[0])
	if err != nil {
		t.Fatal(err)
	}
	st, err := export.ReadSafetensors(got[1], arch)
	if err != nil {
		t.Fatalf("the page's safetensors: %v", err)
	}
	if !slices.Equal(st, snap) {
		t.Error("the page's safetensors holds other parameters than its .plnn")
	}
	if want, err := export.ONNX(arch, snap); err != nil || !bytes.Equal(got[2], want) {
		t.Errorf("the page's ONNX (%d bytes) is not engine/export's encoding of its parameters (%d bytes, %v)", len(got[2]), len(want), err)
	}
	if _, err := evalJS[string](tb, `peerlearnPeer.downloadModel("pt").then(() => "resolved")`); err == nil || !strings.Contains(err.Error(), "plnn, safetensors or onnx") {
		t.Errorf("an unknown format: %v", err)
	}

	// Leave: the native peer sees its only neighbour go.
	if err := chromedp.Do(ctx, chromedp.Click("#leave")); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	waitUntil(t, "Leave", 15*time.Second, 200*time.Millisecond, func() string {
		bv, _ := browserView(tb)
		nv, err := nativeView(native)
		if err == nil && len(nv.Neighbors) == 0 && bv.State == "left" {
			return ""
		}
		return fmt.Sprintf("tab %q, native peer neighbours %v (%v)", bv.State, nv.Neighbors, err)
	})
	t.Logf("Leave: the tab left and the native peer dropped it in %v", time.Since(t1).Round(time.Millisecond))
}
