package overlay

import (
	"errors"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Transport carries encoded messages between peers, addressed by ID: the
// implementation maps an ID to a connection (simnet.Endpoint in
// simulation, later WebRTC data channels). Send must not block and must
// not call back into the Node; delivery is best effort.
type Transport interface {
	Send(to ident.Peer, msg []byte) error
}

// Flush encodes every message in n's Ready, hands each to t, advances n
// and returns the Ready (for its deliveries and neighbour changes). A
// failed Send does not stop the others; the errors are joined.
func Flush(n *Node, t Transport) (Ready, error) {
	rd := n.Ready()
	var errs []error
	for _, m := range rd.Messages {
		b, err := Marshal(m)
		if err == nil {
			err = t.Send(m.To, b)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	n.Advance()
	return rd, errors.Join(errs...)
}

// Receive decodes msg and steps n with it.
func Receive(n *Node, msg []byte) error {
	m, err := Unmarshal(msg)
	if err != nil {
		return err
	}
	return n.Step(m)
}
