package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar is a progress bar over Total units. Its methods are safe for
// concurrent use.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	total    int64
	done     int64
	start    time.Time
	tty      bool
	lastDraw time.Time
	lastPct  int
	lastDone int64
	finished bool
}

// New returns a bar writing to w (usually os.Stderr). The bar redraws in
// place only when w is a terminal. A nil w gives a nil bar, whose methods
// do nothing (a caller that shows no progress needs no checks).
func New(w io.Writer, label string, total int64) *Bar {
	if w == nil {
		return nil
	}
	return &Bar{w: w, label: label, total: max(total, 1), start: time.Now(), tty: isTerminal(w), lastPct: -1}
}

// Add advances the bar by n units.
func (b *Bar) Add(n int64) { b.Set(-1, n) }

// Set sets the done count (done >= 0) or adds delta to it (done < 0).
func (b *Bar) Set(done, delta int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if done >= 0 {
		b.done = done
	} else {
		b.done += delta
	}
	b.done = min(b.done, b.total)
	b.draw(false)
}

// Finish draws the bar at its final state and ends the line.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.draw(true)
	b.finished = true
}

func (b *Bar) draw(final bool) {
	now := time.Now()
	pct := int(100 * b.done / b.total)
	if b.tty {
		if !final && now.Sub(b.lastDraw) < 100*time.Millisecond {
			return
		}
	} else if pct/10 == b.lastPct/10 && (!final || b.done == b.lastDone) {
		// Plain output: one line per 10%, and Finish adds a line only
		// when the last one printed is out of date.
		return
	}
	b.lastDraw, b.lastPct, b.lastDone = now, pct, b.done
	const width = 30
	fill := int(width * b.done / b.total)
	elapsed := now.Sub(b.start).Round(100 * time.Millisecond)
	eta := "?"
	if b.done > 0 {
		eta = (time.Duration(float64(now.Sub(b.start)) * float64(b.total-b.done) / float64(b.done))).Round(time.Second).String()
	}
	line := fmt.Sprintf("%s [%s%s] %3d%% %d/%d %s eta %s", b.label, strings.Repeat("#", fill), strings.Repeat(".", width-fill), pct, b.done, b.total, elapsed, eta)
	if b.tty {
		fmt.Fprintf(b.w, "\r\033[K%s", line)
		if final {
			fmt.Fprintln(b.w)
		}
		return
	}
	fmt.Fprintln(b.w, line)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
