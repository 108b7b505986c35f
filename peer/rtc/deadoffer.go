package rtc

import (
	"net/netip"
	"strconv"
	"strings"
)

// workableCandidates reports whether an offer's SDP has a candidate that
// could work: a UDP or TCP candidate with a unicast address that is not
// unspecified (or an mDNS .local name, as browsers hide host addresses
// behind) and a port. Offers are not trickled (every candidate is in the
// SDP), so an offer without one can never connect: a dead offer, refused
// on arrival and charged to its sender (policy_serveroffers.go) instead
// of holding an offer slot for ConnectTimeout. A candidate that looks
// workable but is not is found out by ConnectTimeout.
func workableCandidates(sdp string) bool {
	for _, line := range strings.Split(sdp, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "a=candidate:")
		if !ok {
			continue
		}
		// foundation component transport priority address port "typ" type ...
		f := strings.Fields(rest)
		if len(f) < 8 || f[6] != "typ" {
			continue
		}
		if t := strings.ToLower(f[2]); t != "udp" && t != "tcp" {
			continue
		}
		if port, err := strconv.Atoi(f[5]); err != nil || port < 1 || port > 65535 {
			continue
		}
		if strings.HasSuffix(f[4], ".local") {
			return true
		}
		addr, err := netip.ParseAddr(f[4])
		if err != nil || addr.IsUnspecified() || addr.IsMulticast() || !addr.IsValid() {
			continue
		}
		return true
	}
	return false
}
