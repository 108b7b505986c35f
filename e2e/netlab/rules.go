package netlab

import (
	"fmt"
	"strconv"
	"strings"
)

// rules is a home router's nftables ruleset. Every router forwards what
// its home sends, and of what comes in only replies (conntrack: from the
// address and port the home sent to) and, for a full cone, UDP to ports
// the home has mapped. A port-restricted home is masquerade and nothing
// else: Linux keeps the inside port for every destination when it can.
// Unsolicited inbound packets are addressed to the router itself (no
// conntrack entry maps them to the home), so its input chain drops them,
// or rejects UDP with ICMP port unreachable (Home.Reject).
func rules(h *Home, turnPorts []int) string {
	var b strings.Builder
	b.WriteString("table ip lab {\n")
	if h.NAT == FullCone {
		// Outbound UDP records its (kept) source port; inbound UDP to a
		// recorded port goes to the host whoever sends it.
		b.WriteString("  set mapped { type inet_service; flags dynamic,timeout; timeout 2m; }\n")
		b.WriteString("  chain lab_mapout { type filter hook postrouting priority srcnat + 10; policy accept;\n")
		b.WriteString("    oifname \"wan\" meta l4proto udp update @mapped { udp sport }\n  }\n")
		b.WriteString("  chain lab_pre { type nat hook prerouting priority dstnat; policy accept;\n")
		fmt.Fprintf(&b, "    iifname \"wan\" udp dport @mapped dnat to %s\n  }\n", h.HostIP)
	}
	b.WriteString("  chain lab_post { type nat hook postrouting priority srcnat; policy accept;\n")
	switch h.NAT {
	case Symmetric:
		b.WriteString("    oifname \"wan\" masquerade fully-random\n")
	default:
		b.WriteString("    oifname \"wan\" masquerade\n")
	}
	b.WriteString("  }\n")
	b.WriteString("  chain lab_fwd { type filter hook forward priority filter; policy drop;\n")
	b.WriteString("    ct state established,related accept\n")
	if h.NAT == UDPBlocked {
		ports := make([]string, len(turnPorts))
		for i, p := range turnPorts {
			ports[i] = strconv.Itoa(p)
		}
		fmt.Fprintf(&b, "    iifname \"lan\" oifname \"wan\" ip daddr %s udp dport { %s } accept\n", ServerIP, strings.Join(ports, ", "))
		b.WriteString("    iifname \"lan\" oifname \"wan\" meta l4proto udp drop\n")
	}
	b.WriteString("    iifname \"lan\" oifname \"wan\" accept\n")
	if h.NAT == FullCone {
		b.WriteString("    iifname \"wan\" oifname \"lan\" ct status dnat accept\n")
	}
	b.WriteString("  }\n")
	b.WriteString("  chain lab_in { type filter hook input priority filter; policy accept;\n")
	b.WriteString("    iifname \"wan\" ct state established,related accept\n")
	if h.Reject {
		b.WriteString("    iifname \"wan\" meta l4proto udp reject with icmp type port-unreachable\n")
	}
	b.WriteString("    iifname \"wan\" drop\n  }\n")
	b.WriteString("}\n")
	return b.String()
}
