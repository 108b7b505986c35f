package server

import "net/http"

// DefaultContentSecurityPolicy fits web/index.html and app.js: scripts
// only from this origin (wasm_exec.js, app.js) plus WebAssembly
// compilation ('wasm-unsafe-eval'; no eval of strings), no inline script
// or style, no plugins, no framing. connect-src also allows other ws:,
// wss: and https: hosts: the page connects to a ?signal= or ?data= host
// of another origin only after the volunteer confirmed it, and the
// WebRTC traffic CSP cannot govern anyway.
const DefaultContentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self'; img-src 'self' data: blob:; connect-src 'self' ws: wss: https:; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// hstsMaxAge is one year, the usual HSTS duration.
const hstsValue = "max-age=31536000"

// withSecurityHeaders adds the headers every response carries: CSP,
// frame denial (CSP frame-ancestors and the older X-Frame-Options),
// Referrer-Policy, nosniff, and HSTS on TLS connections only (over plain
// HTTP it would be ignored, and it must not pin a LAN name to https by
// accident).
func withSecurityHeaders(csp string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		if csp != "" {
			hd.Set("Content-Security-Policy", csp)
		}
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Content-Type-Options", "nosniff")
		if r.TLS != nil {
			hd.Set("Strict-Transport-Security", hstsValue)
		}
		h.ServeHTTP(w, r)
	})
}
