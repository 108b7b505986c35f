//go:build js

package rtc

import "github.com/pion/webrtc/v4"

// newAPI builds the pion API in a browser: the browser's RTCPeerConnection
// chooses candidates and timeouts itself (its SettingEngine supports only
// DetachDataChannels, which this package does not use).
func newAPI(Config) *webrtc.API { return webrtc.NewAPI() }
