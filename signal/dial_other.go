//go:build !js

package signal

import (
	"crypto/tls"
	"net/http"

	"github.com/coder/websocket"
)

// dialOptions passes the configured headers and trusted roots (native
// builds).
func dialOptions(c ClientConfig) *websocket.DialOptions {
	o := &websocket.DialOptions{HTTPHeader: c.Header}
	if c.RootCAs != nil {
		o.HTTPClient = &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: c.RootCAs, MinVersion: tls.VersionTLS12},
		}}
	}
	return o
}
