package signal

import "fmt"

// Code says why the server refused something: the code of an error
// message, and the reason label of the server's refusal counters. Values
// are fixed: append new codes, never renumber or reuse one.
type Code uint16

const (
	// CodeMalformed: the message could not be decoded or is out of range.
	CodeMalformed Code = 1
	// CodeVersion: another protocol version.
	CodeVersion Code = 2
	// CodeTooLarge: the message exceeds the server's size limit (the
	// connection is closed).
	CodeTooLarge Code = 3
	// CodeRateLimited: more messages per second than allowed; dropped.
	CodeRateLimited Code = 4
	// CodeUnexpected: a message type not allowed at this point (a relay
	// before hello, a second hello, a welcome from a client).
	CodeUnexpected Code = 5
	// CodeBadSignature: the hello's key or signature does not verify.
	CodeBadSignature Code = 6
	// CodeUnknownTask: the server hosts no such task.
	CodeUnknownTask Code = 7
	// CodeTaskFull: the task has its maximum number of peers.
	CodeTaskFull Code = 8
	// CodeServerFull: the server has its maximum number of peers or
	// pending handshakes.
	CodeServerFull Code = 9
	// CodeNotAllowed: a relay outside the bootstrap window or between
	// peers that are not a new peer and one of its contacts.
	CodeNotAllowed Code = 10
	// CodeUnknownPeer: the relay's target is not connected.
	CodeUnknownPeer Code = 11
	// CodeBusy: the relay's target cannot take more messages now.
	CodeBusy Code = 12
	// CodeHandshakeTimeout: no valid hello in time.
	CodeHandshakeTimeout Code = 13
	// CodeIdleTimeout: nothing received for too long.
	CodeIdleTimeout Code = 14
	// CodeReplaced: the same peer registered again on another connection.
	CodeReplaced Code = 15
	// CodeShutdown: the server is shutting down.
	CodeShutdown Code = 16
	// CodeOrigin: the websocket's Origin is not allowed (HTTP 403; a
	// counter reason only, never sent as a message).
	CodeOrigin Code = 17
	// CodeTooManyErrors: too many refused messages on one connection
	// (the connection is closed).
	CodeTooManyErrors Code = 18
	// CodeProofOfWork: the hello's proof of work is below the task's
	// difficulty, or its admission token does not verify.
	CodeProofOfWork Code = 19
	// CodeAdmissionLimited: the client's IP or subnet has used up its
	// admissions (new keys) for now; a peer re-joining with its token is
	// not counted.
	CodeAdmissionLimited Code = 20
)

var codeNames = map[Code]string{
	CodeMalformed: "malformed", CodeVersion: "version", CodeTooLarge: "too-large",
	CodeRateLimited: "rate-limited", CodeUnexpected: "unexpected",
	CodeBadSignature: "bad-signature", CodeUnknownTask: "unknown-task",
	CodeTaskFull: "task-full", CodeServerFull: "server-full",
	CodeNotAllowed: "not-allowed", CodeUnknownPeer: "unknown-peer", CodeBusy: "busy",
	CodeHandshakeTimeout: "handshake-timeout", CodeIdleTimeout: "idle-timeout",
	CodeReplaced: "replaced", CodeShutdown: "shutdown", CodeOrigin: "origin",
	CodeTooManyErrors: "too-many-errors", CodeProofOfWork: "proof-of-work",
	CodeAdmissionLimited: "admission-limited",
}

// Codes lists the known codes in numeric order.
func Codes() []Code {
	out := make([]Code, 0, len(codeNames))
	for c := Code(1); int(c) <= len(codeNames); c++ {
		out = append(out, c)
	}
	return out
}

// Known reports whether c is a code this version knows.
func (c Code) Known() bool { _, ok := codeNames[c]; return ok }

// String names the code (the refusal counters' label).
func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("code-%d", uint16(c))
}
