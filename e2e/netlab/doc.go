// Package netlab builds a small multi-host network out of Linux network
// namespaces, for tests and by hand (`make netlab`): an "internet"
// namespace with the signalling server and TURN, and homes behind NATs of
// different kinds, each a router namespace (nftables NAT and filtering)
// and a host namespace where peers and browsers run.
//
//	internet 203.0.113.0/24 (a bridge; the server at .1)
//	 ├── router a .10  full cone                         host a 192.168.10.2
//	 ├── router b .20  symmetric (random ports)          host b 192.168.20.2
//	 ├── router c .30  UDP only to TURN                  host c 192.168.30.2
//	 ├── router d .40  symmetric (random ports)          host d 192.168.40.2
//	 ├── router e .50  port-restricted, drops            host e 192.168.50.2
//	 ├── router f .60  port-restricted, drops            host f 192.168.60.2
//	 ├── router g .70  port-restricted, rejects (ICMP)   host g 192.168.70.2
//	 └── router h .80  port-restricted, rejects (ICMP)   host h 192.168.80.2
//
// Home a's router maps ports endpoint-independently (masquerade keeps the
// port) and, once a port is mapped by outbound UDP, lets any remote reach
// it (endpoint-independent filtering, RFC 4787: a full cone); unsolicited
// inbound UDP to a port nothing inside has used is dropped, as a home
// router does. Homes b and d map every destination to a random port
// (masquerade fully-random): symmetric NATs. Home c's router drops all
// UDP except to the TURN server's port. Homes e to h run plain Linux
// masquerade, as Linux-based home routers do: the inside port kept for every
// destination, but only replies from the address and port the home sent
// to get in (port-restricted cones); e and f drop other inbound UDP, g
// and h answer it with ICMP port unreachable. No router forwards
// unsolicited inbound traffic. ExpectedPath says which pairs can link
// directly.
//
// Every namespace's name starts with a per-run prefix (pl-<pid>-<n>-), so
// runs never collide, and Close deletes them all; nothing is added to the
// caller's own namespace: veth pairs are created directly inside the
// namespaces they join. It needs root, ip (iproute2) and nft (nftables):
// Available says why not.
package netlab
