package netpeer

import "github.com/peerlearn/peerlearn/peer/node"

// Offender is one neighbour whose models were cut back or refused, or
// whose reputation is below full trust (node.Guard's record of it).
type Offender = node.Offender
