package server

import (
	"errors"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
)

func TestConfigValidate(t *testing.T) {
	spec, _ := servertest.Task(t, "a")
	good := func() Config {
		c := DefaultConfig()
		c.Tasks = []task.Spec{spec}
		return c
	}
	c := good()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(*Config){
		"no tasks":       func(c *Config) { c.Tasks = nil },
		"invalid task":   func(c *Config) { c.Tasks[0].Arch = "nope" },
		"duplicate task": func(c *Config) { c.Tasks = append(c.Tasks, c.Tasks[0]) },
		"max peers":      func(c *Config) { c.MaxPeers = 0 },
		"handshakes":     func(c *Config) { c.MaxHandshakes = 0 },
		"message size":   func(c *Config) { c.MaxMessageSize = signal.MaxMessageSize + 1 },
		"rate":           func(c *Config) { c.MessagesPerSecond = 0 },
		"burst":          func(c *Config) { c.Burst = 0 },
		"strikes":        func(c *Config) { c.MaxStrikes = 0 },
		"idle":           func(c *Config) { c.IdleTimeout = 0 },
		"bootstrap":      func(c *Config) { c.BootstrapTimeout = time.Hour },
		"contacts":       func(c *Config) { c.Contacts = 4 },
		"queue":          func(c *Config) { c.SendQueue = 0 },
		"handshakes/IP":  func(c *Config) { c.AddrLimits.HandshakesPerIP = 0 },
		"subnet < IP":    func(c *Config) { c.AddrLimits.PeersPerSubnet = c.AddrLimits.PeersPerIP - 1 },
		"task share":     func(c *Config) { c.AddrLimits.TaskShare = 1.5 },
		"subnet bits":    func(c *Config) { c.AddrLimits.SubnetBitsIPv4 = 33 },
		"gzip":           func(c *Config) { c.StaticGzipBytes = -1 },
		"origin pattern": func(c *Config) { c.AllowedOrigins = []string{"[bad"} },
		"ICE scheme":     func(c *Config) { c.ICEServers = []signal.ICEServer{{URLs: []string{"http://x"}}} },
		"TURN short":     func(c *Config) { c.TURN = &TURNAuth{URLs: []string{"turn:x"}, Secret: "s", TTL: time.Hour} },
		"TURN stun URL": func(c *Config) {
			c.TURN = &TURNAuth{URLs: []string{"stun:x"}, Secret: "0123456789abcdef", TTL: time.Hour}
		},
		"too many ICE": func(c *Config) {
			for range signal.MaxICEServers + 1 {
				c.ICEServers = append(c.ICEServers, signal.ICEServer{URLs: []string{"stun:x"}})
			}
		},
	}
	for name, mutate := range bad {
		c := good()
		mutate(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := New(c); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}

func TestBucket(t *testing.T) {
	t0 := time.Unix(0, 0)
	b := newBucket(10, 5, t0)
	n := 0
	for range 100 {
		if b.allow(t0) {
			n++
		}
	}
	if n != 5 {
		t.Fatalf("burst: %d", n)
	}
	if !b.allow(t0.Add(100*time.Millisecond)) || b.allow(t0.Add(100*time.Millisecond)) {
		t.Fatal("refill of one token in 100 ms")
	}
	n = 0
	for range 100 {
		if b.allow(t0.Add(time.Hour)) {
			n++
		}
	}
	if n != 5 {
		t.Fatalf("refill capped at burst: %d", n)
	}
	if b.allow(t0) { // clock going back gives nothing
		t.Fatal("token from the past")
	}
}
