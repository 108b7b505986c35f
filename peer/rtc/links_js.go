//go:build js

package rtc

import "github.com/pion/webrtc/v4"

// remoteHosts is unknown in a browser: -1.
func remoteHosts(*webrtc.PeerConnection) int { return -1 }
