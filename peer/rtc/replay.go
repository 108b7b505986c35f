package rtc

// ReplayWindow is the number of sequence numbers below the highest seen
// that may still arrive (once each). A browser delivers data channel
// messages on one goroutine each (pion's GOOS=js OnMessage), so frames of
// one ordered channel can reach the handler slightly out of order; a
// strict "greater than the last" rule would refuse them.
const ReplayWindow = 1024

// replayWindow tracks the control sequence numbers seen from one peer:
// a frame is fresh if its number is above the highest seen, or within
// ReplayWindow below it and not seen yet. Anything else is a replay.
// Not safe for concurrent use.
type replayWindow struct {
	top  uint64 // highest accepted; valid once any is set
	any  bool
	bits [ReplayWindow / 64]uint64 // bit (top - seq) set: seq seen
}

// accept records seq and reports whether it was fresh.
func (w *replayWindow) accept(seq uint64) bool {
	if !w.any {
		w.any, w.top = true, seq
		w.bits = [ReplayWindow / 64]uint64{}
		w.bits[0] = 1
		return true
	}
	if seq > w.top {
		w.shift(seq - w.top)
		w.top = seq
		w.bits[0] |= 1
		return true
	}
	d := w.top - seq
	if d >= ReplayWindow {
		return false
	}
	word, bit := d/64, d%64
	if w.bits[word]&(1<<bit) != 0 {
		return false
	}
	w.bits[word] |= 1 << bit
	return true
}

// shift moves the window up by n: bit k becomes bit k+n.
func (w *replayWindow) shift(n uint64) {
	if n >= ReplayWindow {
		w.bits = [ReplayWindow / 64]uint64{}
		return
	}
	words, bits := int(n/64), n%64
	for i := len(w.bits) - 1; i >= 0; i-- {
		var v uint64
		if j := i - words; j >= 0 {
			v = w.bits[j] << bits
			if bits > 0 && j-1 >= 0 {
				v |= w.bits[j-1] >> (64 - bits)
			}
		}
		w.bits[i] = v
	}
}
