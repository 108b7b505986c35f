package node

import "errors"

// ErrConfig: a configuration is refused; the message says which field.
var ErrConfig = errors.New("node: invalid config")

// ErrSimulatorOnly: a task spec asks for a method or policy that only
// the simulator runs today (peerlearn sim train); a real peer refuses it
// rather than run something else under its name.
var ErrSimulatorOnly = errors.New("node: the simulator runs this, a real peer does not yet")
