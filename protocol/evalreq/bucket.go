package evalreq

// bucket is a token bucket in ticks: it holds at most capacity tokens,
// starts full and gains one token every every ticks.
type bucket struct {
	capacity, every int
	tokens, ticks   int
}

func newBucket(capacity, every int) bucket {
	return bucket{capacity: capacity, every: every, tokens: capacity}
}

// tick advances time by one tick.
func (b *bucket) tick() {
	if b.tokens >= b.capacity {
		b.ticks = 0
		return
	}
	b.ticks++
	if b.ticks >= b.every {
		b.ticks = 0
		b.tokens++
	}
}

// take spends a token if there is one.
func (b *bucket) take() bool {
	if b.tokens == 0 {
		return false
	}
	b.tokens--
	return true
}
