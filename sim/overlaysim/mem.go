package overlaysim

import (
	"runtime"
	"sync"
	"time"
)

// memPeak samples runtime.MemStats.Sys (memory obtained from the OS)
// every period of wall time until stop, keeping the peak.
type memPeak struct {
	mu   sync.Mutex
	peak uint64
	done chan struct{}
	wg   sync.WaitGroup
}

func startMemPeak(period time.Duration) *memPeak {
	m := &memPeak{done: make(chan struct{})}
	m.sample()
	m.wg.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-m.done:
				return
			case <-t.C:
				m.sample()
			}
		}
	})
	return m
}

func (m *memPeak) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.mu.Lock()
	m.peak = max(m.peak, ms.Sys)
	m.mu.Unlock()
}

// stop ends the sampling and returns the peak in bytes.
func (m *memPeak) stop() uint64 {
	close(m.done)
	m.wg.Wait()
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}
