package signal

import (
	"fmt"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// ProtocolVersion is the version of this protocol; messages of another
// version are refused (CodeVersion).
const ProtocolVersion = 1

// Protocol limits.
const (
	// MaxMessageSize bounds an encoded message (a welcome carries a task
	// spec of up to task.MaxSpecSize; a relay up to MaxRelayData).
	MaxMessageSize = 64 << 10
	// MaxRelayData bounds a relay's payload (an SDP with its candidates
	// is a few KiB).
	MaxRelayData = 32 << 10
	// MaxContacts bounds the contacts of a welcome.
	MaxContacts = 3
	// MaxTextLen bounds an error's text and a bye's reason.
	MaxTextLen = 256
	// MaxBootstrapMS bounds a welcome's bootstrap window.
	MaxBootstrapMS = 10 * 60 * 1000
)

// Message is one protocol message: the version, the type and exactly the
// payload field the type names (none for ping and pong).
type Message struct {
	V         int        `json:"v"`
	Type      MsgType    `json:"type"`
	Challenge *Challenge `json:"challenge,omitempty"`
	Hello     *Hello     `json:"hello,omitempty"`
	Welcome   *Welcome   `json:"welcome,omitempty"`
	Relay     *Relay     `json:"relay,omitempty"`
	Connected *Connected `json:"connected,omitempty"`
	Bye       *Bye       `json:"bye,omitempty"`
	Error     *Refusal   `json:"error,omitempty"`
	Summary   *Summary   `json:"summary,omitempty"`
}

// Challenge opens a session: the hello must sign Nonce.
type Challenge struct {
	// Nonce is NonceSize fresh random bytes (base64 in JSON).
	Nonce []byte `json:"nonce"`
	// PoWBits is the proof-of-work difficulty the hello must meet (the
	// highest of the server's tasks; see types/admission), 0 to
	// admission.MaxPoWBits.
	PoWBits int `json:"pow_bits,omitempty"`
}

// Hello registers a peer for a task.
type Hello struct {
	// ID is SHA-256 of PublicKey.
	ID ident.Peer `json:"id"`
	// PublicKey is the ed25519 public key (32 bytes, base64 in JSON).
	PublicKey []byte `json:"public_key"`
	// Task is the task the peer joins.
	Task ident.Task `json:"task"`
	// Signature is ed25519 over HelloMessage(nonce, Task, ID).
	Signature []byte `json:"sig"`
	// PoW is the key's proof-of-work nonce (admission.CheckPoW); bound to
	// the key and the task, so it needs no signature.
	PoW uint64 `json:"pow,omitempty"`
	// Token is an admission token the peer already holds (a re-join in
	// the same epoch), admission.TokenSize bytes or none. A valid one is
	// renewed without counting against the address's admission limit.
	Token []byte `json:"token,omitempty"`
	// Observer says the peer only watches the task (`peerlearn collect`):
	// it joins no overlay and trains nothing, so the server never hands
	// it out as a contact and does not count it among the task's peers
	// (it has a bound of its own, server.MaxObservers).
	Observer bool `json:"observer,omitempty"`
}

// Welcome accepts a hello.
type Welcome struct {
	// Contacts are 0 to MaxContacts live peers of the task to connect
	// to first; none for the task's first peer.
	Contacts []ident.Peer `json:"contacts"`
	// ICEServers are the STUN/TURN servers to give the peer connection.
	ICEServers []ICEServer `json:"ice_servers"`
	// Task is the task's spec; its ID is the hello's task.
	Task task.Spec `json:"task"`
	// BootstrapMS is how long (ms) the server relays for this peer unless
	// it reports MsgConnected first.
	BootstrapMS int `json:"bootstrap_ms"`
	// Token is the peer's admission token (admission.TokenSize bytes):
	// its ring placement and the record other peers check before routing
	// through it.
	Token []byte `json:"token,omitempty"`
	// AdmissionKey is the key the server signs tokens with (32 bytes); it
	// equals the task's admission key when the spec names one.
	AdmissionKey []byte `json:"admission_key,omitempty"`
}

// Relay carries signalling for one WebRTC connection.
type Relay struct {
	// From is the sender, set by the server (clients leave it zero).
	From ident.Peer `json:"from"`
	// To is the receiver.
	To ident.Peer `json:"to"`
	// Kind says what Data is.
	Kind RelayKind `json:"kind"`
	// Data is opaque to the server: SDP or candidate JSON, 1 to
	// MaxRelayData bytes.
	Data string `json:"data"`
}

// Connected reports an open data channel: a new peer's first
// connection (to one of its contacts), or a contact's confirmation of a
// new peer's (MsgConnected).
type Connected struct {
	// Peer is the other end: the contact, or the new peer.
	Peer ident.Peer `json:"peer"`
}

// Bye says the sender is leaving.
type Bye struct {
	// Reason is free text, at most MaxTextLen bytes.
	Reason string `json:"reason,omitempty"`
}

// Refusal is an error message: the server refused something the client
// sent. As a Go error it wraps ErrRefused.
type Refusal struct {
	// Code says why (codes a newer server adds are passed through).
	Code Code `json:"code"`
	// Text explains, at most MaxTextLen bytes.
	Text string `json:"text,omitempty"`
}

// Error describes the refusal.
func (r *Refusal) Error() string {
	if r.Text == "" {
		return fmt.Sprintf("signal: refused by the server (%v)", r.Code)
	}
	return fmt.Sprintf("signal: refused by the server (%v): %s", r.Code, r.Text)
}

// Unwrap makes errors.Is(r, ErrRefused) true.
func (r *Refusal) Unwrap() error { return ErrRefused }

// Is matches another *Refusal with the same code, so errors.Is(err,
// &Refusal{Code: CodeTaskFull}) tests for a code.
func (r *Refusal) Is(target error) bool {
	t, ok := target.(*Refusal)
	return ok && t.Code == r.Code
}
