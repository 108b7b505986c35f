package rtc

import (
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
)

// EventType says what an Event reports.
type EventType uint8

const (
	// EventMessage: a verified control message (Kind KindOverlay or
	// KindApp) from Peer; Data is its payload.
	EventMessage EventType = iota + 1
	// EventTransfer: a complete incoming transfer whose hash matched;
	// Manifest describes it and Data holds its bytes.
	EventTransfer
	// EventSent: the outgoing transfer Handle was received intact.
	EventSent
	// EventSendFailed: the outgoing transfer Handle failed for good
	// (after retries, or its connection closed); Err says why.
	EventSendFailed
	// EventUp: a connection to Peer opened.
	EventUp
	// EventDown: the open connection to Peer closed.
	EventDown
)

func (t EventType) String() string {
	switch t {
	case EventMessage:
		return "message"
	case EventTransfer:
		return "transfer"
	case EventSent:
		return "sent"
	case EventSendFailed:
		return "send-failed"
	case EventUp:
		return "up"
	case EventDown:
		return "down"
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// Event is something the Manager reports on its Events channel.
type Event struct {
	Type     EventType
	Peer     ident.Peer
	Kind     Kind     // EventMessage
	Data     []byte   // EventMessage, EventTransfer: owned by the receiver of the event
	Manifest Manifest // EventTransfer
	Handle   uint64   // EventSent, EventSendFailed: SendTransfer's handle
	Err      error    // EventSendFailed
}
