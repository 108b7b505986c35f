// Package browser holds PeerLearn's browser end-to-end tests: real
// headless Chromium (Debian's chromium package, driven over the DevTools
// protocol with chromedp) loading the page (web/) and the Go-wasm peer
// (wasm/) from cmd/signalserver, next to native `peerlearn peer`
// processes, all talking real WebRTC over 127.0.0.1 and training on real
// MNIST. The package has no code of its own outside its tests.
//
// The tests need Chromium: they look for it on PATH and, as root with
// apt-get, install it (apt-get install -y --no-install-recommends
// chromium). Without it they skip, except under CI=true, where they fail
// saying so. They need the MNIST files of `make data` ($PEERLEARN_DATA or
// the checkout's .data) under the same rule.
//
// TestFirefoxJoins also runs Debian's firefox-esr (installed the same
// way, or PEERLEARN_FIREFOX), driven over WebDriver BiDi by
// firefox/tab.mjs with puppeteer-core (npm ci from firefox/'s lockfile,
// run by the test when node_modules is missing; it downloads no browser).
// TestSIMDKernelsInChromium runs internal/f32's and engine/nn's
// SIMD-versus-pure-Go tests, built GOOS=js, in Chromium; TestLightTab
// counts the bytes a tab downloads from Chromium's network events.
//
// The tests that assert mechanisms run in parallel, three at once unless
// -parallel says otherwise; those that measure time or load run alone
// first (parallel_test.go).
//
// Artifacts (screenshots) go to $PEERLEARN_ARTIFACTS, else the checkout's
// out/browsertest; the tests log their paths.
package browser
