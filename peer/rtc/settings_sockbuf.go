//go:build !js

package rtc

import "github.com/peerlearn/peerlearn/internal/sockbuf"

// socketBuffer is the kernel buffer asked for on each ICE socket, each
// way. With the default (net.core.rmem_default, 208 KiB) a relayed
// transfer in the network lab lost ~0.3% of its packets in the
// receiving peer's socket (UDP RcvbufErrors) while pion's read loop was
// descheduled, and every loss halves the SCTP sender's congestion
// window. The kernel caps the request at net.core.rmem_max / wmem_max.
const socketBuffer = 4 << 20

// growSocketBuffers asks for socketBuffer each way on c when it can; a
// refusal leaves the default, which works, only slower.
func growSocketBuffers(c any) { sockbuf.Grow(c, socketBuffer) }
