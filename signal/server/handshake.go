package server

import (
	"crypto/rand"
	"errors"
	"time"

	"github.com/peerlearn/peerlearn/signal"
)

// handshake sends the challenge, reads and checks the hello, registers
// the peer and sends the welcome; false if the connection was refused or
// ended.
func (sess *session) handshake() bool {
	sess.nonce = make([]byte, signal.NonceSize)
	rand.Read(sess.nonce) // never fails (crypto/rand panics rather)
	sess.send(&signal.Message{Type: signal.MsgChallenge, Challenge: &signal.Challenge{Nonce: sess.nonce, PoWBits: sess.srv.powBits()}})

	deadline := time.Now().Add(sess.srv.cfg.HandshakeTimeout)
	b, ok := sess.read(time.Until(deadline), signal.CodeHandshakeTimeout)
	if !ok {
		return false
	}
	m, err := signal.Decode(b)
	switch {
	case errors.Is(err, signal.ErrVersion):
		return sess.fail(signal.CodeVersion, err.Error())
	case err != nil:
		return sess.fail(signal.CodeMalformed, err.Error())
	case m.Type != signal.MsgHello:
		return sess.fail(signal.CodeUnexpected, "want hello, got "+m.Type.String())
	}
	if err := signal.VerifyHello(m.Hello, sess.nonce); err != nil {
		return sess.fail(signal.CodeBadSignature, err.Error())
	}
	welcome, code, text := sess.srv.register(sess, m.Hello)
	if code != 0 {
		return sess.fail(code, text)
	}
	sess.srv.logf("signal server: peer %v (%s) joined task %v with %d contacts", m.Hello.ID, sess.remote, m.Hello.Task, len(welcome.Contacts))
	sess.send(&signal.Message{Type: signal.MsgWelcome, Welcome: welcome})
	return true
}

// fail counts a refused handshake and closes the connection with code.
func (sess *session) fail(code signal.Code, text string) bool {
	sess.srv.counters.refuse(code)
	sess.srv.logf("signal server: %s: refused: %v: %s", sess.remote, code, text)
	sess.closeWith(code, text)
	return false
}
