// Package netlab builds a small multi-host network out of Linux network
// namespaces, for tests and by hand (`make netlab`): an "internet"
// namespace with the signalling server and TURN, and homes behind NATs of
// different kinds, each a router namespace (nftables NAT and filtering)
// and a host namespace where peers and browsers run.
//
//	            internet  203.0.113.0/24 (bridge; server .1)
//	   ┌───────────┬───────────┼───────────┬───────────┐
//	router a .10  router b .20  router c .30  router d .40
//	 EIM+EIF        symmetric    UDP only to   symmetric
//	 (full cone)    (random)     TURN          (random)
//	host a         host b       host c        host d
//	192.168.10.2   192.168.20.2 192.168.30.2  192.168.40.2
//
// Home a's router maps ports endpoint-independently (masquerade keeps the
// port) and, once a port is mapped by outbound UDP, lets any remote reach
// it (endpoint-independent filtering, RFC 4787); unsolicited inbound UDP to
// a port nothing inside has used is dropped, as a home router does. Homes
// b and d map every destination to a random port (masquerade
// fully-random): symmetric NATs. Home c's router drops all UDP except to
// the TURN server's port. No router forwards unsolicited inbound traffic.
//
// Every namespace's name starts with a per-run prefix (pl-<pid>-<n>-), so
// runs never collide, and Close deletes them all; nothing is added to the
// caller's own namespace: veth pairs are created directly inside the
// namespaces they join. It needs root, ip (iproute2) and nft (nftables):
// Available says why not.
package netlab
