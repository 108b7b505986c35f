package netpeer

import (
	"fmt"

	"github.com/peerlearn/peerlearn/peer/node"
)

// BridgeMode says when a peer with one signalling server registers with
// it again to heal a partition (Config.BridgeAlone): node.BridgeMode,
// which the registrar decides by.
type BridgeMode = node.BridgeMode

// The modes (node's).
const (
	BridgeWhenSplit = node.BridgeWhenSplit
	BridgeAlways    = node.BridgeAlways
	BridgeNever     = node.BridgeNever
)

// ParseBridgeMode reads a mode's name.
func ParseBridgeMode(s string) (BridgeMode, error) {
	for _, m := range []BridgeMode{BridgeWhenSplit, BridgeAlways, BridgeNever} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("bridge mode %q: want when-split, always or never", s)
}
