package rtc

import "time"

// pacer decides when a transfer may put its next chunk into the data
// channel's buffer: never above HighWater, and never above MaxQueueDelay
// worth of the rate at which the buffer has drained so far in this
// transfer (starting from LowWater before any estimate), with a floor of
// two chunks. On a fast link the HighWater bound rules (throughput); on a
// slow or CPU-starved one the delay bound keeps control frames, which
// queue behind the buffered chunks, from waiting seconds (a neighbour
// would then miss heartbeats and be declared failed). Not safe for
// concurrent use.
type pacer struct {
	high, low, floor float64
	delay            float64 // seconds
	start            time.Time
	written          float64 // bytes handed to the channel
	now              func() time.Time
}

func newPacer(c Config) *pacer {
	return &pacer{
		high: float64(c.HighWater), low: float64(c.LowWater), floor: float64(2 * c.ChunkSize),
		delay: c.MaxQueueDelay.Seconds(), start: time.Now(), now: time.Now,
	}
}

// limit returns the buffered amount above which the transfer pauses.
func (p *pacer) limit(buffered uint64) float64 {
	el := p.now().Sub(p.start).Seconds()
	drained := p.written - float64(buffered)
	if el < 0.05 || drained <= 0 {
		return p.low // no estimate yet
	}
	return min(p.high, max(p.floor, drained/el*p.delay))
}

// wait reports whether the transfer must pause with buffered bytes in
// the channel's buffer.
func (p *pacer) wait(buffered uint64) bool { return float64(buffered) > p.limit(buffered) }

// sent records n bytes handed to the channel.
func (p *pacer) sent(n int) { p.written += float64(n) }
