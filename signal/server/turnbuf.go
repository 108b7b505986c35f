package server

import (
	"net"

	"github.com/peerlearn/peerlearn/internal/sockbuf"
)

// turnSocketBuffer is the kernel buffer asked for on each of the TURN
// server's UDP sockets (the listening one and every relay), each way.
// With the default (net.core.rmem_default, 208 KiB here) the lab's relay
// socket dropped ~0.15% of a relayed transfer's packets in bursts while
// pion's read loop was descheduled (UDP RcvbufErrors in the server's
// namespace), and each drop halves the SCTP sender's congestion window.
// The kernel caps the request at net.core.rmem_max / wmem_max
// (docs/DEPLOY.md: raise them on a busy relay).
const turnSocketBuffer = 4 << 20

// growBuffers asks for turnSocketBuffer each way on c when it is a UDP
// socket; a refusal leaves the default, which works, only slower.
func growBuffers(c net.PacketConn) { sockbuf.Grow(c, turnSocketBuffer) }
