//go:build !js

package signal

import "github.com/coder/websocket"

// dialOptions passes the configured headers (native builds).
func dialOptions(c ClientConfig) *websocket.DialOptions {
	return &websocket.DialOptions{HTTPHeader: c.Header}
}
