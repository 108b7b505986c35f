package proc

import "sync"

// tailBuffer keeps the last max bytes written to it: a chatty child's
// in-memory stderr log stays bounded.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	if len(b) >= t.max {
		t.b = append(t.b[:0], b[len(b)-t.max:]...)
		return n, nil
	}
	if over := len(t.b) + len(b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	t.b = append(t.b, b...)
	return n, nil
}

func (t *tailBuffer) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.b...)
}
