package demo

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/peerlearn/peerlearn/netpeer"
	"github.com/peerlearn/peerlearn/overlay"
)

// fetchStatus reads one peer's GET /status.
func fetchStatus(ctx context.Context, client *http.Client, url string) (netpeer.Status, error) {
	var s netpeer.Status
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return s, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// correctness is the FedLay paper's Fig. 8 measure over the peers'
// reported neighbour sets: correct neighbours / (expected + wrong extras),
// against the sets computed from all the peers' IDs. 1 exactly when every
// peer has exactly its adjacent nodes.
func correctness(sts []netpeer.Status, spaces int) (float64, error) {
	ids := make([]overlay.ID, len(sts))
	for i, s := range sts {
		b, err := hex.DecodeString(s.ID)
		if err != nil || len(b) != len(overlay.ID{}) {
			return 0, fmt.Errorf("peer reports a malformed ID %q", s.ID)
		}
		copy(ids[i][:], b)
	}
	want := overlay.ExpectedTables(ids, spaces)
	var correct, expected, extra int
	for i, s := range sts {
		w := want[ids[i]].Neighbors()
		wantHex := make([]string, len(w))
		for j, id := range w {
			wantHex[j] = hex.EncodeToString(id[:])
		}
		expected += len(wantHex)
		for _, nb := range s.Neighbors {
			if slices.Contains(wantHex, nb) {
				correct++
			} else {
				extra++
			}
		}
	}
	if expected+extra == 0 {
		return 1, nil
	}
	return float64(correct) / float64(expected+extra), nil
}
