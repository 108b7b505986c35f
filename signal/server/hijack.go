package server

import (
	"bufio"
	"net"
	"net/http"
)

// hijackRecorder keeps the net.Conn websocket.Accept hijacks, so that a
// connection can be dropped at once (a websocket Close waits up to 5 s for
// an unresponsive peer's close frame).
type hijackRecorder struct {
	http.ResponseWriter
	conn net.Conn
}

// Hijack implements http.Hijacker.
func (h *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	h.conn = c
	return c, brw, err
}
