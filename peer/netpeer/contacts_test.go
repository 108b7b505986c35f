package netpeer

import (
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func TestRotateContacts(t *testing.T) {
	a, b, c := ident.Peer{1}, ident.Peer{2}, ident.Peer{3}
	cs := []ident.Peer{a, b, c}
	for _, tc := range []struct {
		k    int
		want []ident.Peer
	}{
		{0, []ident.Peer{a, b, c}},
		{1, []ident.Peer{b, c, a}},
		{2, []ident.Peer{c, a, b}},
		{3, []ident.Peer{a, b, c}},
		{4, []ident.Peer{b, c, a}},
		{-1, []ident.Peer{a, b, c}},
	} {
		if got := rotateContacts(cs, tc.k); !slices.Equal(got, tc.want) {
			t.Errorf("k=%d: got %v, want %v", tc.k, got, tc.want)
		}
	}
	if !slices.Equal(cs, []ident.Peer{a, b, c}) {
		t.Errorf("the welcome's list was changed: %v", cs)
	}
	if got := rotateContacts(nil, 2); len(got) != 0 {
		t.Errorf("no contacts: got %v", got)
	}
}
