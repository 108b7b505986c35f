package signal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/peerlearn/peerlearn/types/admission"
)

// Encode validates m and returns its wire form. V is set to
// ProtocolVersion when zero.
func Encode(m *Message) ([]byte, error) {
	if m.V == 0 {
		c := *m
		c.V = ProtocolVersion
		m = &c
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("%w: encode: %v", ErrMalformed, err)
	}
	if len(b) > MaxMessageSize {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(b), MaxMessageSize)
	}
	return b, nil
}

// Decode reads one message and validates it. Errors wrap ErrTooLarge
// (longer than MaxMessageSize), ErrVersion (another protocol version) or
// ErrMalformed (anything else).
func Decode(b []byte) (*Message, error) {
	if len(b) > MaxMessageSize {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(b), MaxMessageSize)
	}
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%w: not UTF-8", ErrMalformed)
	}
	// The version first, leniently: another version may have other fields.
	var probe struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if probe.V == nil {
		return nil, fmt.Errorf("%w: no version field", ErrMalformed)
	}
	if *probe.V != ProtocolVersion {
		return nil, fmt.Errorf("%w: version %d, this side speaks %d", ErrVersion, *probe.V, ProtocolVersion)
	}
	var m Message
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: trailing data", ErrMalformed)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Validate checks the version, that exactly the payload the type names
// is present, and the payload's fields; errors wrap ErrVersion or
// ErrMalformed.
func (m *Message) Validate() error {
	if m.V != ProtocolVersion {
		return fmt.Errorf("%w: version %d, this side speaks %d", ErrVersion, m.V, ProtocolVersion)
	}
	if !m.Type.Valid() {
		return malformed("unknown message type %d", m.Type)
	}
	present := map[MsgType]bool{
		MsgChallenge: m.Challenge != nil, MsgHello: m.Hello != nil,
		MsgWelcome: m.Welcome != nil, MsgRelay: m.Relay != nil,
		MsgConnected: m.Connected != nil, MsgBye: m.Bye != nil, MsgError: m.Error != nil,
		MsgSummary: m.Summary != nil,
	}
	for t, ok := range present {
		if ok != (t == m.Type) {
			if ok {
				return malformed("%v message with a %v payload", m.Type, t)
			}
			return malformed("%v message without its payload", m.Type)
		}
	}
	switch m.Type {
	case MsgChallenge:
		if len(m.Challenge.Nonce) != NonceSize {
			return malformed("nonce of %d bytes, want %d", len(m.Challenge.Nonce), NonceSize)
		}
		if b := m.Challenge.PoWBits; b < 0 || b > admission.MaxPoWBits {
			return malformed("pow_bits %d, want 0 to %d", b, admission.MaxPoWBits)
		}
	case MsgHello:
		return m.Hello.validate()
	case MsgWelcome:
		return m.Welcome.validate()
	case MsgRelay:
		return m.Relay.validate()
	case MsgConnected:
		if m.Connected.Peer.IsZero() {
			return malformed("connected without a peer")
		}
	case MsgBye:
		return checkText("bye reason", m.Bye.Reason)
	case MsgSummary:
		return m.Summary.validate()
	case MsgError:
		if m.Error.Code == 0 {
			return malformed("error code 0")
		}
		return checkText("error text", m.Error.Text)
	}
	return nil
}

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, a...)...)
}

func checkText(what, s string) error {
	if len(s) > MaxTextLen {
		return malformed("%s of %d bytes, limit %d", what, len(s), MaxTextLen)
	}
	return nil
}

func (h *Hello) validate() error {
	switch {
	case h.ID.IsZero():
		return malformed("hello without an ID")
	case h.Task.IsZero():
		return malformed("hello without a task")
	case len(h.PublicKey) != 32:
		return malformed("public key of %d bytes, want 32", len(h.PublicKey))
	case len(h.Signature) != 64:
		return malformed("signature of %d bytes, want 64", len(h.Signature))
	case len(h.Token) != 0 && len(h.Token) != admission.TokenSize:
		return malformed("token of %d bytes, want %d", len(h.Token), admission.TokenSize)
	}
	return nil
}

func (w *Welcome) validate() error {
	if len(w.Contacts) > MaxContacts {
		return malformed("%d contacts, limit %d", len(w.Contacts), MaxContacts)
	}
	for i, c := range w.Contacts {
		if c.IsZero() {
			return malformed("contact %d is the zero ID", i)
		}
		for _, d := range w.Contacts[:i] {
			if c == d {
				return malformed("contact %v twice", c)
			}
		}
	}
	if err := ValidateICEServers(w.ICEServers); err != nil {
		return err
	}
	if len(w.Token) != 0 && len(w.Token) != admission.TokenSize {
		return malformed("token of %d bytes, want %d", len(w.Token), admission.TokenSize)
	}
	if len(w.AdmissionKey) != 0 && len(w.AdmissionKey) != 32 {
		return malformed("admission key of %d bytes, want 32", len(w.AdmissionKey))
	}
	if w.BootstrapMS < 0 || w.BootstrapMS > MaxBootstrapMS {
		return malformed("bootstrap_ms %d, want 0 to %d", w.BootstrapMS, MaxBootstrapMS)
	}
	if err := w.Task.Validate(); err != nil {
		return fmt.Errorf("%w: welcome task: %w", ErrMalformed, err)
	}
	return nil
}

func (r *Relay) validate() error {
	switch {
	case r.To.IsZero():
		return malformed("relay without a receiver")
	case !r.Kind.Valid():
		return malformed("relay kind %d", r.Kind)
	case len(r.Data) == 0 || len(r.Data) > MaxRelayData:
		return malformed("relay data of %d bytes, want 1 to %d", len(r.Data), MaxRelayData)
	}
	return nil
}
