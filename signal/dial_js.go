//go:build js

package signal

import "github.com/coder/websocket"

// dialOptions: a browser's WebSocket takes no extra headers.
func dialOptions(ClientConfig) *websocket.DialOptions { return &websocket.DialOptions{} }
