package netpeer

import (
	"context"

	"github.com/peerlearn/peerlearn/signal"
)

// Several signalling servers for one task, for availability. The servers
// share no state: each knows only the peers registered with it and hands
// out those as contacts. A peer registers with one server at a time, the
// first that answers in a shuffled order (so a dead server listed first
// costs every newcomer one refused dial, not all of them the same wait,
// and the load spreads). One at a time because the transport relays its
// bootstrap sessions through one attached registration: an offer relayed
// by another server would be answered through the attached one, which
// does not know the offerer.
//
// Peers that bootstrapped through different servers form separate
// overlays at first (node.Registrar decides the moves below; this file
// keeps the server list and the dial). The bridge joins them: a member moves its
// registration to a random other server about every BridgeEvery and
// joins through the first contact of that server's welcome. That join is
// the overlay's merge probe (protocol/overlay merge.go) started by hand:
// if the contact is in the peer's own overlay the discoveries stop next
// to the peer, nothing comes back and the node is a member again on its
// next tick (its tables are full); if the contact is in another overlay
// the peer finds its place there and the claims, hints and repairs splice
// the rings. Moving (rather than staying registered with every server)
// also keeps each server's contact list a sample of the whole overlay,
// so newcomers through any server join the one overlay. The cost is one
// WebSocket handshake per peer per BridgeEvery at some server.

// servers lists the configured signalling servers, SignalURL first, each
// once.
func (c Config) servers() []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range append([]string{c.SignalURL}, c.SignalURLs...) {
		if u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// dialEach registers with the first of urls that accepts, trying them in
// order with dial; it returns that server's URL, or the last error.
func dialEach(ctx context.Context, urls []string, dial func(context.Context, string) (*signal.Client, error), logf func(string, ...any)) (*signal.Client, string, error) {
	var err error
	for _, u := range urls {
		var c *signal.Client
		if c, err = dial(ctx, u); err == nil {
			return c, u, nil
		}
		if ctx.Err() != nil {
			break
		}
		if len(urls) > 1 {
			logf("signalling server %s: %v", u, err)
		}
	}
	return nil, "", err
}
