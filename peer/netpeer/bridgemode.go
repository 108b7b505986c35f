package netpeer

import "fmt"

// BridgeMode says when a peer with one signalling server registers with
// it again to heal a partition (Config.BridgeAlone).
type BridgeMode uint8

const (
	// BridgeWhenSplit (the default): only while the overlay remembers
	// failed neighbours that are not neighbours again and that no
	// connection has reached since (they may be alive across a healed
	// cut), about every BridgeEvery at first and then half as often after
	// each registration that changed no neighbour once bridgeGraceMoves
	// have, up to maxBridgeBackoff times BridgeEvery; a new failure starts
	// over. A peer whose
	// neighbours all stay up never registers again; one that saw a
	// neighbour die registers a few times in the hour it remembers it.
	BridgeWhenSplit BridgeMode = iota
	// BridgeAlways: about every BridgeEvery, whatever the overlay knows.
	BridgeAlways
	// BridgeNever: never; a partition longer than the transport's grace
	// then stays split unless the peers have several servers.
	BridgeNever
)

// maxBridgeBackoff caps BridgeWhenSplit's back-off at 32 BridgeEvery
// (half an hour at the default minute): still several tries within the
// hour the overlay remembers a failed neighbour.
const maxBridgeBackoff = 5

var bridgeModeNames = [...]string{BridgeWhenSplit: "when-split", BridgeAlways: "always", BridgeNever: "never"}

// String names the mode as the -bridge-alone flag spells it.
func (m BridgeMode) String() string {
	if int(m) < len(bridgeModeNames) {
		return bridgeModeNames[m]
	}
	return fmt.Sprintf("BridgeMode(%d)", uint8(m))
}

// ParseBridgeMode reads a mode's name.
func ParseBridgeMode(s string) (BridgeMode, error) {
	for m, name := range bridgeModeNames {
		if s == name {
			return BridgeMode(m), nil
		}
	}
	return 0, fmt.Errorf("bridge mode %q: want when-split, always or never", s)
}
