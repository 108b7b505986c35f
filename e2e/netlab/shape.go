package netlab

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Shape is what a home's internet link does to every frame, each way:
// a delay of Delay ± Jitter (uniform; frames keep their order) and a
// Loss probability. The kernel here has no netem, so a shaped lab links
// each router to the internet through two TAP devices and this process
// copies frames between them.
type Shape struct {
	Delay, Jitter time.Duration
	Loss          float64
}

func (s Shape) String() string {
	return fmt.Sprintf("%v±%v each way, %.1f%% loss each way", s.Delay, s.Jitter, 100*s.Loss)
}

// shaper copies frames between a router's wan TAP and its port on the
// internet's bridge.
type shaper struct {
	mu    sync.Mutex
	shape Shape
	rng   *rand.Rand
	files []*os.File
	wg    sync.WaitGroup
}

// openTAP creates TAP device name in namespace ns and returns its file
// (non-blocking, so that Close ends a pending Read).
func openTAP(ns, name string) (*os.File, error) {
	var f *os.File
	err := Do(ns, func() error {
		fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open /dev/net/tun: %w", err)
		}
		ifr, err := unix.NewIfreq(name)
		if err != nil {
			unix.Close(fd)
			return err
		}
		ifr.SetUint16(unix.IFF_TAP | unix.IFF_NO_PI)
		if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
			unix.Close(fd)
			return fmt.Errorf("TUNSETIFF %s: %w", name, err)
		}
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(fd)
			return err
		}
		f = os.NewFile(uintptr(fd), name)
		return nil
	})
	return f, err
}

// start copies frames both ways between a and b.
func (s *shaper) start(a, b *os.File) {
	s.files = append(s.files, a, b)
	s.wg.Add(2)
	go s.pump(a, b)
	go s.pump(b, a)
}

type frame struct {
	b  []byte
	at time.Time
}

// pump copies src's frames to dst, each held for the shape's delay (or
// dropped); a bounded queue: frames beyond it are dropped, as a full
// router buffer would.
func (s *shaper) pump(src, dst *os.File) {
	defer s.wg.Done()
	q := make(chan frame, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range q {
			if d := time.Until(f.at); d > 0 {
				time.Sleep(d)
			}
			dst.Write(f.b) //nolint:errcheck // a closed device: the lab is going
		}
	}()
	buf := make([]byte, 65536)
	var last time.Time
	for {
		n, err := src.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrClosed) || n == 0 {
				break
			}
			continue
		}
		s.mu.Lock()
		sh := s.shape
		drop := sh.Loss > 0 && s.rng.Float64() < sh.Loss
		d := sh.Delay
		if sh.Jitter > 0 {
			d += time.Duration((s.rng.Float64()*2 - 1) * float64(sh.Jitter))
		}
		s.mu.Unlock()
		if drop {
			continue
		}
		at := time.Now().Add(d)
		if at.Before(last) {
			at = last // frames keep their order
		}
		last = at
		select {
		case q <- frame{append([]byte(nil), buf[:n]...), at}:
		default: // queue full: dropped
		}
	}
	close(q)
	<-done
}

func (s *shaper) set(sh Shape) {
	s.mu.Lock()
	s.shape = sh
	s.mu.Unlock()
}

func (s *shaper) close() {
	for _, f := range s.files {
		f.Close()
	}
	s.wg.Wait()
}
