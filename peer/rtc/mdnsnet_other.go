//go:build !unix && !js

package rtc

import (
	"errors"

	"github.com/pion/transport/v4"
)

// sharedMDNSNet is unix only: elsewhere pion's own network is used and
// only a process's first peer connection resolves mDNS candidates.
func sharedMDNSNet() (transport.Net, error) {
	return nil, errors.ErrUnsupported
}
