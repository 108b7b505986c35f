package method

import "errors"

var (
	// ErrConfig: a core's configuration is invalid.
	ErrConfig = errors.New("method: invalid configuration")
	// ErrForged: a message whose header names a sender other than the
	// peer the transport authenticated.
	ErrForged = errors.New("method: message from another sender than it claims")
	// ErrPayload: a model header without its payload, or the reverse.
	ErrPayload = errors.New("method: payload does not match the header")
	// ErrNoEval: Evaluated with a token the core did not hand out.
	ErrNoEval = errors.New("method: no such evaluation outstanding")
	// ErrOverBudget: a request beyond what the core answers in a burst
	// (PENSConfig.AnswerBurst); the requester times out.
	ErrOverBudget = errors.New("method: request over the answer budget")
	// ErrWire: a message this method does not know.
	ErrWire = errors.New("method: malformed message")
)
