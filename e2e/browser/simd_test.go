package browser

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPeerTabKernels: a loaded peer tab runs the WebAssembly SIMD128
// kernels (f32.Kernels() is "simd128", not the pure-Go fallback) and the
// page says so.
func TestPeerTabKernels(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	data := dataDir(t)
	_, sigBin, wasmDir := build(t, data)
	srv := startE2EServer(t, sigBin, wasmDir)
	tb := openTab(t, bin, "kernels", srv.origin, srv.origin+"/")
	k, err := evalJS[string](tb, `PeerLearn.kernels + "|" + (PeerLearn.kernelsNote || "") + "|" + document.getElementById("kernels").dataset.kernels + "|" + document.getElementById("kernels").textContent`)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.SplitN(k, "|", 4)
	if len(f) != 4 || f[0] != "simd128" || f[2] != "simd128" || !strings.Contains(f[3], "SIMD") {
		t.Fatalf("PeerLearn.kernels|kernelsNote|page's kernels|page's text = %q: want the simd128 kernels, shown on the page", k)
	}
}

// simdTestPage runs the Go test binary ?bin= (built GOOS=js GOARCH=wasm)
// with the arguments ?run= and leaves its exit code in window.testExit
// and its output (wasm_exec writes it with console.log) in window.testOut.
const simdTestPage = `<!doctype html><meta charset="utf-8"><script src="wasm_exec.js"></script><script>
window.testOut = ""; window.testExit = null;
const log = console.log.bind(console);
console.log = (...a) => { window.testOut += a.join(" ") + "\n"; log(...a); };
(async () => {
  const q = new URLSearchParams(location.search);
  const go = new Go();
  go.argv = ["x.test", "-test.v", "-test.run=" + q.get("run")];
  go.exit = (code) => { window.testExit = code; };
  try {
    const inst = (await WebAssembly.instantiateStreaming(fetch(q.get("bin")), go.importObject)).instance;
    await go.run(inst);
    if (window.testExit === null) window.testExit = -1;
  } catch (e) {
    window.testOut += "page: " + (e && e.stack || e) + "\n";
    window.testExit = -2;
  }
})();
</script>`

// TestSIMDKernelsInChromium: the SIMD128 kernels equal the pure-Go ones in
// Chromium, as under node: internal/f32's and engine/nn's own tests
// (every GEMM layout, the element-wise, strided and SGD kernels; every
// layer type forward and backward), built as GOOS=js test binaries and
// run in one headless Chromium. Each must exit 0 and report PASS, and
// the tests that require the SIMD module (TestSIMDRuns; nn's, which
// skips without it) must have run, not skipped.
func TestSIMDKernelsInChromium(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	dir := t.TempDir()
	type suite struct {
		pkg, run string
		must     []string // "--- PASS: X" lines the output must hold
	}
	suites := []suite{
		{"../../internal/f32", "SIMD|Elementwise|Strided|SGD|Gemm", []string{"TestSIMDRuns", "TestSIMDMatchesPureGo", "TestElementwiseKernels", "TestGemmAccelerated"}},
		{"../../engine/nn", "TestAcceleratedLayersMatchPureGo", []string{"TestAcceleratedLayersMatchPureGo"}},
	}
	for _, s := range suites {
		cmd := exec.Command("go", "test", "-c", "-o", filepath.Join(dir, filepath.Base(s.pkg)+".test.wasm"), s.pkg)
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", s.pkg, err, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.html"), []byte(simdTestPage), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()

	tb := openBench(t, bin)
	for _, s := range suites {
		name := filepath.Base(s.pkg)
		url := fmt.Sprintf("http://%s/run.html?bin=%s.test.wasm&run=%s", ln.Addr(), name, s.run)
		ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
		err := chromedp.Do(ctx, chromedp.Navigate(url))
		cancel()
		if err != nil {
			t.Fatalf("%s: load %s: %v", name, url, err)
		}
		var exit int
		waitUntil(t, name+"'s tests in Chromium", 5*time.Minute, 500*time.Millisecond, func() string {
			v, err := evalJS[*int](tb, `window.testExit`)
			if err == nil && v != nil {
				exit = *v
				return ""
			}
			return fmt.Sprintf("still running (%v)", err)
		})
		out, err := evalJS[string](tb, `window.testOut`)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out, "\n")
		if exit != 0 || !strings.Contains(out, "\nPASS\n") {
			t.Fatalf("%s in Chromium: exit %d\n%s", name, exit, tail([]byte(out)))
		}
		for _, m := range s.must {
			if !containsLine(lines, "--- PASS: "+m+" ") {
				t.Errorf("%s in Chromium: %s did not pass (skipped or not run)\n%s", name, m, tail([]byte(out)))
			}
		}
		t.Logf("%s in Chromium: exit 0, %d tests passed", name, strings.Count(out, "--- PASS: "))
	}
}

// containsLine reports whether a line of lines, trimmed of leading
// spaces, starts with prefix.
func containsLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), prefix) {
			return true
		}
	}
	return false
}
