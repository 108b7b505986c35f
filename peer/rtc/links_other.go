//go:build !js

package rtc

import "github.com/pion/webrtc/v4"

// remoteHosts counts pc's remote host candidates with an address (a
// `.local` name counts once pion resolved it).
func remoteHosts(pc *webrtc.PeerConnection) int {
	n := 0
	for _, s := range pc.GetStats() {
		if c, ok := s.(webrtc.ICECandidateStats); ok && c.Type == webrtc.StatsTypeRemoteCandidate &&
			c.CandidateType == webrtc.ICECandidateTypeHost && c.IP != "" {
			n++
		}
	}
	return n
}
