package methodsim

import (
	"context"
	"io"

	"github.com/peerlearn/peerlearn/internal/progress"
)

// bar is a progress bar that may be absent.
type bar struct{ b *progress.Bar }

func newBar(w io.Writer, label string, total int64) bar {
	if w == nil {
		return bar{}
	}
	return bar{progress.New(w, label, total)}
}

func (b bar) add(n int64) {
	if b.b != nil {
		b.b.Add(n)
	}
}

func (b bar) set(done int64) {
	if b.b != nil {
		b.b.Set(done, 0)
	}
}

func (b bar) finish() {
	if b.b != nil {
		b.b.Finish()
	}
}

// ctxErr is ctx's error, nil for a nil ctx.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}
