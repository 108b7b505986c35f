package netlab

import (
	"net"
	"testing"
	"time"
)

// A shaped link delays each frame by the shape's delay each way and
// drops about its loss: measured with UDP echoes from home a's host to
// the internet (one shaped link crossed twice per round trip).
func TestShapedLinkDelaysAndDrops(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Shaped, cfg.Seed = true, 1
	l := startLab(t, cfg)
	if err := l.Shape(Shape{Delay: 40 * time.Millisecond, Loss: 0.05}); err != nil {
		t.Fatal(err)
	}
	echo, err := ListenPacket(l.Internet, "udp4", ServerIP+":6000")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		buf := make([]byte, 64)
		for {
			n, from, err := echo.ReadFrom(buf)
			if err != nil {
				return
			}
			echo.WriteTo(buf[:n], from)
		}
	}()
	h := l.Home("a")
	c, err := ListenPacket(h.Host, "udp4", h.HostIP+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 100
	var got int
	var rtts []float64
	for i := range n {
		start := time.Now()
		c.WriteTo([]byte{byte(i)}, &net.UDPAddr{IP: net.ParseIP(ServerIP), Port: 6000})
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		buf := make([]byte, 8)
		// An echo of an earlier probe that came back late is skipped,
		// not taken for this probe's loss: read on until this one's
		// echo or the deadline (one late echo used to turn every later
		// probe into a "loss" until a real loss resynchronised them).
		for {
			k, _, err := c.ReadFrom(buf)
			if err != nil {
				break
			}
			if k == 1 && buf[0] == byte(i) {
				got++
				rtts = append(rtts, float64(time.Since(start).Milliseconds()))
				break
			}
		}
	}
	p50 := Percentile(rtts, 50)
	t.Logf("%d of %d echoes back, round trip p50 %.0f ms", got, n, p50)
	if p50 < 80 || p50 > 150 {
		t.Errorf("round trip p50 %.0f ms, want about 80 (two 40 ms crossings)", p50)
	}
	// Two crossings at 5% each: ~10% lost; 100 tries.
	if lost := n - got; lost < 2 || lost > 30 {
		t.Errorf("%d of %d lost, want about 10", lost, n)
	}
}
