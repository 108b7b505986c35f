package netlab

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
)

// NAT is a home router's kind (RFC 4787's mapping and filtering).
type NAT int

const (
	// FullCone maps each inside port to the same outside port for every
	// destination and, once mapped, accepts UDP from anyone to it
	// (endpoint-independent mapping and filtering).
	FullCone NAT = iota
	// Symmetric maps each destination to a new random port and accepts
	// only replies (masquerade fully-random): address-and-port-dependent
	// mapping and filtering.
	Symmetric
	// UDPBlocked forwards UDP only to the internet's TURN ports; TCP
	// passes.
	UDPBlocked
	// PortRestricted is plain Linux masquerade, what most home routers
	// run: the inside port kept for every destination (endpoint-
	// independent mapping), but only replies from the address and port
	// the home sent to get in (conntrack: address-and-port-dependent
	// filtering). HomeSpec.Reject says what happens to the rest.
	PortRestricted
)

func (n NAT) String() string {
	switch n {
	case FullCone:
		return "full-cone"
	case Symmetric:
		return "symmetric"
	case UDPBlocked:
		return "udp-blocked"
	case PortRestricted:
		return "port-restricted"
	}
	return fmt.Sprintf("NAT(%d)", int(n))
}

// HomeSpec asks for one home.
type HomeSpec struct {
	Name string // a letter or short word: it names the namespaces
	NAT  NAT
	// Reject answers unsolicited inbound UDP with ICMP port unreachable
	// (a Linux router with no firewall rule for it does so) instead of
	// dropping it silently.
	Reject bool
}

// Config describes a lab.
type Config struct {
	Homes []HomeSpec
	// TURNPorts are the UDP ports on the server a UDPBlocked home may
	// reach (the embedded TURN server's and coturn's).
	TURNPorts []int
	// Shaped links each router to the internet through TAP devices this
	// process copies frames between, so that Lab.Shape can add delay and
	// loss (this kernel has no netem). Unshaped: veth pairs.
	Shaped bool
	// Seed draws the shaped links' jitter and losses.
	Seed uint64
}

// DefaultConfig is the lab of the package doc: homes a (full cone), b
// (symmetric), c (UDP blocked but to TURN), d (symmetric), e and f (port
// restricted, dropping unsolicited UDP) and g and h (port restricted,
// rejecting it): two homes of each port-restricted kind, so that the
// matrix has pairs of each kind across two routers.
func DefaultConfig() Config {
	return Config{
		Homes: []HomeSpec{
			{Name: "a", NAT: FullCone},
			{Name: "b", NAT: Symmetric},
			{Name: "c", NAT: UDPBlocked},
			{Name: "d", NAT: Symmetric},
			{Name: "e", NAT: PortRestricted},
			{Name: "f", NAT: PortRestricted},
			{Name: "g", NAT: PortRestricted, Reject: true},
			{Name: "h", NAT: PortRestricted, Reject: true},
		},
		TURNPorts: []int{3478, 3479}, // pion's embedded TURN, coturn
	}
}

// ServerIP is the internet namespace's address: the signalling server,
// STUN and TURN listen there.
const ServerIP = "203.0.113.1"

// Home is one home: a router namespace and a host namespace behind it.
type Home struct {
	Name   string
	NAT    NAT
	Reject bool   // unsolicited UDP is rejected (ICMP), not dropped
	Router string // the router's namespace
	Host   string // the host's namespace: peers and browsers run here
	WANIP  string // the router's internet address
	HostIP string // the host's private address
	subnet int    // third octet of the home's 192.168.x.0/24
}

// Lab is a running network of namespaces.
type Lab struct {
	Prefix   string  // every namespace's name starts with it
	Internet string  // the internet namespace
	Homes    []*Home // in Config order
	created  []string
	shaper   *shaper // nil: unshaped
}

var runs atomic.Int64

// Available reports why a lab cannot be built here (nil when it can).
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("netlab needs root (network namespaces, nftables)")
	}
	for _, bin := range []string{"ip", "nft", "tc"} {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("netlab needs %s (scripts/deps.sh netlab): %w", bin, err)
		}
	}
	if out, err := exec.Command("ip", "netns", "list").CombinedOutput(); err != nil {
		return fmt.Errorf("netlab: ip netns list: %v: %s", err, out)
	}
	return nil
}

// Start builds the lab. On error everything it made is removed.
func Start(cfg Config) (_ *Lab, err error) {
	if err := Available(); err != nil {
		return nil, err
	}
	l := &Lab{Prefix: fmt.Sprintf("pl-%d-%d-", os.Getpid(), runs.Add(1))}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	if cfg.Shaped {
		l.shaper = &shaper{rng: rand.New(rand.NewPCG(cfg.Seed, 0x736861706572))}
	}
	l.Internet = l.Prefix + "inet"
	if err := l.addNS(l.Internet); err != nil {
		return nil, err
	}
	if err := l.ipIn(l.Internet,
		"link add br0 type bridge",
		"addr add "+ServerIP+"/24 dev br0",
		"link set br0 up"); err != nil {
		return nil, err
	}
	for i, hs := range cfg.Homes {
		h := &Home{Name: hs.Name, NAT: hs.NAT, Reject: hs.Reject, Router: l.Prefix + "r" + hs.Name, Host: l.Prefix + "h" + hs.Name,
			WANIP: fmt.Sprintf("203.0.113.%d", 10*(i+1)), subnet: 10 * (i + 1)}
		h.HostIP = fmt.Sprintf("192.168.%d.2", h.subnet)
		if err := l.addHome(h, cfg.TURNPorts); err != nil {
			return nil, fmt.Errorf("home %s: %w", h.Name, err)
		}
		l.Homes = append(l.Homes, h)
	}
	return l, nil
}

// Home returns the home of that name, or nil.
func (l *Lab) Home(name string) *Home {
	for _, h := range l.Homes {
		if h.Name == name {
			return h
		}
	}
	return nil
}

func (l *Lab) addHome(h *Home, turnPorts []int) error {
	for _, ns := range []string{h.Router, h.Host} {
		if err := l.addNS(ns); err != nil {
			return err
		}
	}
	port := "p" + h.Name // the router's port on the internet's bridge
	if l.shaper != nil {
		wan, err := openTAP(h.Router, "wan")
		if err != nil {
			return err
		}
		p, err := openTAP(l.Internet, port)
		if err != nil {
			wan.Close()
			return err
		}
		l.shaper.start(wan, p)
	} else if err := l.ipIn(h.Router, "link add wan type veth peer name "+port+" netns "+l.Internet); err != nil {
		return err
	}
	if err := l.ipIn(h.Router,
		"addr add "+h.WANIP+"/24 dev wan",
		"link set wan up",
		"link add lan type veth peer name eth0 netns "+h.Host,
		fmt.Sprintf("addr add 192.168.%d.1/24 dev lan", h.subnet),
		"link set lan up"); err != nil {
		return err
	}
	if err := l.ipIn(l.Internet, "link set "+port+" master br0", "link set "+port+" up"); err != nil {
		return err
	}
	if err := l.ipIn(h.Host,
		"addr add "+h.HostIP+"/24 dev eth0",
		"link set eth0 up",
		fmt.Sprintf("route add default via 192.168.%d.1", h.subnet)); err != nil {
		return err
	}
	if err := l.run("ip", "netns", "exec", h.Router, "sysctl", "-qw", "net.ipv4.ip_forward=1"); err != nil {
		return err
	}
	return l.nft(h.Router, rules(h, turnPorts))
}

// addNS creates a namespace with loopback up and IPv6 off (the lab is
// IPv4; link-local IPv6 candidates would only add noise).
func (l *Lab) addNS(ns string) error {
	if err := l.run("ip", "netns", "add", ns); err != nil {
		return err
	}
	l.created = append(l.created, ns)
	if err := l.ipIn(ns, "link set lo up"); err != nil {
		return err
	}
	return l.run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
}

// ipIn runs `ip -n ns <cmd>` for each command.
func (l *Lab) ipIn(ns string, cmds ...string) error {
	for _, c := range cmds {
		if err := l.run("ip", append([]string{"-n", ns}, strings.Fields(c)...)...); err != nil {
			return err
		}
	}
	return nil
}

func (l *Lab) nft(ns, ruleset string) error {
	cmd := exec.Command("ip", "netns", "exec", ns, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(ruleset)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nft in %s: %v: %s\n%s", ns, err, out, ruleset)
	}
	return nil
}

func (l *Lab) run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// Close deletes every namespace the lab made (their interfaces, rules
// and processes' sockets go with them). Processes still running inside
// are the caller's to stop first.
func (l *Lab) Close() error {
	if l.shaper != nil {
		l.shaper.close()
		l.shaper = nil
	}
	var errs []error
	for i := len(l.created) - 1; i >= 0; i-- {
		if err := l.run("ip", "netns", "delete", l.created[i]); err != nil {
			errs = append(errs, err)
		}
	}
	l.created = nil
	return errors.Join(errs...)
}

// Namespaces returns the names of the lab's namespaces.
func (l *Lab) Namespaces() []string { return append([]string(nil), l.created...) }
