//go:build js

package netpeer

import (
	"errors"
	"net"
)

// listenStatus fails in the browser: a tab cannot accept connections
// (its page reads Status directly).
func listenStatus(string) (net.Listener, error) {
	return nil, errors.New("no status endpoint in the browser")
}

func (p *Peer) serveStatus() (stop func()) { return func() {} }
