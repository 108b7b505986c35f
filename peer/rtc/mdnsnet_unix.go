//go:build unix && !js

package rtc

import (
	"context"
	"net"
	"syscall"

	"github.com/pion/transport/v4"
	"github.com/pion/transport/v4/stdnet"
	"golang.org/x/sys/unix"
)

// mdnsNet is the standard network, except that a multicast listen (pion's
// mDNS socket on 224.0.0.251:5353 or [ff02::fb]:5353) shares its address
// with every other such socket: each receives a copy of every answer.
type mdnsNet struct{ *stdnet.Net }

func sharedMDNSNet() (transport.Net, error) {
	n, err := stdnet.NewNet()
	if err != nil {
		return nil, err
	}
	return mdnsNet{n}, nil
}

// ListenUDP implements transport.Net.
func (n mdnsNet) ListenUDP(network string, addr *net.UDPAddr) (transport.UDPConn, error) {
	if addr == nil || !addr.IP.IsMulticast() {
		c, err := n.Net.ListenUDP(network, addr)
		if err == nil {
			growSocketBuffers(c)
		}
		return c, err
	}
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
			if serr == nil {
				serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
			}
		})
		if err != nil {
			return err
		}
		return serr
	}}
	pc, err := lc.ListenPacket(context.Background(), network, addr.String())
	if err != nil {
		return nil, err
	}
	return pc.(*net.UDPConn), nil
}

// ListenPacket implements transport.Net (pion's sockets towards TURN).
func (n mdnsNet) ListenPacket(network, address string) (net.PacketConn, error) {
	c, err := n.Net.ListenPacket(network, address)
	if err == nil {
		growSocketBuffers(c)
	}
	return c, err
}
