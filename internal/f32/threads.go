package f32

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// threads is the number of goroutines a kernel may split work across.
var threads atomic.Int32

func init() { threads.Store(int32(defaultThreads())) }

// SetThreads sets how many cores kernels may use; n < 1 means all of them.
// It returns the previous value. Under GOOS=js it has no effect beyond 1.
func SetThreads(n int) int {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	n = min(n, maxThreads())
	return int(threads.Swap(int32(n)))
}

// Threads reports how many cores kernels may use.
func Threads() int { return int(threads.Load()) }

func defaultThreads() int { return min(runtime.GOMAXPROCS(0), maxThreads()) }

// minWorkPerThread is the number of multiply-adds below which splitting
// work across goroutines costs more than it saves.
const minWorkPerThread = 32 * 1024

// parallelRows runs fn over [0, rows) split into contiguous chunks, one per
// goroutine, every chunk but the last a multiple of align rows; costPerRow
// is the multiply-add count of one row.
func parallelRows(rows, align, costPerRow int, fn func(r0, r1 int)) {
	t := Threads()
	if byWork := rows * costPerRow / minWorkPerThread; byWork < t {
		t = max(byWork, 1)
	}
	t = min(t, (rows+align-1)/align)
	if t <= 1 {
		fn(0, rows)
		return
	}
	chunk := ((rows+t-1)/t + align - 1) / align * align
	var wg sync.WaitGroup
	for r0 := 0; r0 < rows; r0 += chunk {
		r1 := min(r0+chunk, rows)
		if r1 == rows {
			fn(r0, r1) // the caller's goroutine takes the last chunk
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(r0, r1)
		}()
	}
	wg.Wait()
}
