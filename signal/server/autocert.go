package server

import (
	"crypto/tls"
	"fmt"
	"net/http"

	"golang.org/x/crypto/acme/autocert"
)

// Autocert returns an ACME (Let's Encrypt) certificate manager for
// domains that caches keys and certificates in cacheDir (kept across
// restarts: Let's Encrypt rate-limits issuance). Its TLSConfig answers
// TLS-ALPN-01 challenges on the TLS port itself; HTTPHandler answers
// HTTP-01 ones on port 80 and redirects everything else to https.
// Requests for any other host name get no certificate.
func Autocert(domains []string, cacheDir string) (*autocert.Manager, error) {
	if len(domains) == 0 {
		return nil, fmt.Errorf("%w: autocert: no domain", ErrConfig)
	}
	if cacheDir == "" {
		return nil, fmt.Errorf("%w: autocert: no cache directory (certificates must survive restarts)", ErrConfig)
	}
	return &autocert.Manager{
		Prompt:     autocert.AcceptTOS,
		HostPolicy: autocert.HostWhitelist(domains...),
		Cache:      autocert.DirCache(cacheDir),
	}, nil
}

// AutocertTLSConfig is m's server TLS config with the protocol floor the
// other modes use.
func AutocertTLSConfig(m *autocert.Manager) *tls.Config {
	c := m.TLSConfig()
	c.MinVersion = tls.VersionTLS12
	return c
}

// AutocertHTTPHandler serves ACME HTTP-01 challenges and redirects the
// rest to https (for the plain-HTTP port 80 listener).
func AutocertHTTPHandler(m *autocert.Manager) http.Handler { return m.HTTPHandler(nil) }
