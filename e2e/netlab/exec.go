package netlab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Command runs name with args inside namespace ns (ip netns exec).
func Command(ns, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// DialContext dials addr from inside namespace ns. The lab's hosts'
// loopback status endpoints are reached this way, with nothing opened in
// the caller's namespace.
func DialContext(ctx context.Context, ns, network, addr string) (c net.Conn, err error) {
	err = Do(ns, func() error {
		var d net.Dialer
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// ListenPacket opens a packet socket inside namespace ns.
func ListenPacket(ns, network, addr string) (c net.PacketConn, err error) {
	err = Do(ns, func() error {
		c, err = net.ListenPacket(network, addr)
		return err
	})
	return c, err
}

// Do runs f on an OS thread switched into namespace ns: the sockets f
// makes belong to ns, and stay there whichever thread uses them later.
// f must not start goroutines that make sockets.
func Do(ns string, f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		err, restored := doIn(ns, f)
		if restored {
			runtime.UnlockOSThread()
		} // else the thread stays locked and exits with this goroutine
		done <- err
	}()
	return <-done
}

func doIn(ns string, f func() error) (err error, restored bool) {
	orig, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		return err, true
	}
	defer orig.Close()
	target, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		return err, true
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("setns %s: %w", ns, err), true
	}
	err = f()
	return err, unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET) == nil
}

// HTTPClient is a client whose connections are made inside ns.
func HTTPClient(ns string, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				return DialContext(ctx, ns, network, addr)
			},
			DisableKeepAlives: true,
		},
	}
}

// Shape sets what every home's internet link does to frames (a lab
// started with Config.Shaped).
func (l *Lab) Shape(sh Shape) error {
	if l.shaper == nil {
		return errors.New("netlab: Shape on a lab started without Config.Shaped")
	}
	l.shaper.set(sh)
	return nil
}

// Describe is the lab's layout in a few lines.
func (l *Lab) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "internet %s: server %s (bridge br0)\n", l.Internet, ServerIP)
	for _, h := range l.Homes {
		kind := h.NAT.String()
		if h.Reject {
			kind += ", rejecting unsolicited UDP"
		}
		fmt.Fprintf(&b, "home %s (%s): router %s wan %s, host %s at %s\n", h.Name, kind, h.Router, h.WANIP, h.Host, h.HostIP)
	}
	return b.String()
}
