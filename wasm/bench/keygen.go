//go:build js && wasm

package main

import (
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/sim/eclipse"
)

// keygen measures the eclipse grinder's per-key work (eclipse.KeyRate:
// an ed25519 key, its peer ID, its spaces ring coordinates) in this
// browser for about d, after a short warm-up, so that an eclipse's key
// count from `peerlearn sim eclipse` converts into time in a tab.
func keygen(spaces int, d time.Duration) (map[string]any, error) {
	if spaces < 1 || spaces > overlay.MaxSpaces || d <= 0 || d > time.Minute {
		return nil, fmt.Errorf("keygen: %d spaces, %v: want 1..%d spaces and 0 < ms <= 60000", spaces, d, overlay.MaxSpaces)
	}
	eclipse.KeyRate(spaces, d/10)
	keys, el := eclipse.KeyRate(spaces, d)
	return map[string]any{
		"keys": keys, "ms": float64(el.Microseconds()) / 1000,
		"keysPerS": float64(keys) / el.Seconds(), "spaces": spaces,
	}, nil
}
