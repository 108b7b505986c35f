package signal

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// TestDialLive registers two peers with a running signalserver and relays
// an offer between them. It runs only when PEERLEARN_SIGNAL_URL (ws://...)
// and PEERLEARN_SIGNAL_TASK (the task ID) are set: it is how the GOOS=js
// client is checked under node (node --experimental-websocket), e.g.
//
//	signalserver -addr 127.0.0.1:8090 -no-web &
//	PEERLEARN_SIGNAL_URL=ws://127.0.0.1:8090/signal PEERLEARN_SIGNAL_TASK=<id> \
//	NODE_OPTIONS=--experimental-websocket GOOS=js GOARCH=wasm \
//	go test -exec=$(go env GOROOT)/lib/wasm/go_js_wasm_exec -run Live ./signal/
func TestDialLive(t *testing.T) {
	url, tidText := os.Getenv("PEERLEARN_SIGNAL_URL"), os.Getenv("PEERLEARN_SIGNAL_TASK")
	if url == "" || tidText == "" {
		t.Skip("PEERLEARN_SIGNAL_URL and PEERLEARN_SIGNAL_TASK not set")
	}
	tid, err := ident.ParseTask(tidText)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := Dial(ctx, url, testIdentity(t, 41), tid, DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Dial(ctx, url, testIdentity(t, 42), tid, DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	w := b.Welcome()
	if id, _ := w.Task.ID(); id != tid || len(w.Contacts) == 0 {
		t.Fatalf("welcome %+v", w)
	}
	// b's contacts are live peers; a is one of them when the task was empty.
	to := w.Contacts[0]
	if err := b.Send(ctx, to, RelayOffer, `{"type":"offer","sdp":"v=0"}`); err != nil {
		t.Fatal(err)
	}
	if to != a.ID() {
		t.Logf("contact %v is another live peer; not waiting for delivery", to)
		return
	}
	select {
	case ev := <-a.Events():
		if ev.Relay == nil || ev.Relay.From != b.ID() || ev.Relay.Kind != RelayOffer {
			t.Fatalf("a got %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("no relay")
	}
}
