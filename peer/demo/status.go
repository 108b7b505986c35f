package demo

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
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
// against the sets computed from the IDs of every member: the demo's
// peers and the others they name as neighbours (browsers that joined).
// 1 exactly when every peer has exactly its adjacent nodes. It also
// returns how many members are not the demo's own peers (silent: hex IDs
// of the demo's peers that did not report, still members for the others).
func correctness(sts []netpeer.Status, spaces int, silent ...string) (float64, int, error) {
	parse := func(h string) (ident.Peer, error) {
		var id ident.Peer
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != len(id) {
			return id, fmt.Errorf("peer reports a malformed ID %q", h)
		}
		copy(id[:], b)
		return id, nil
	}
	ids := make([]ident.Peer, len(sts))
	members := map[ident.Peer]bool{}
	for i, s := range sts {
		id, err := parse(s.ID)
		if err != nil {
			return 0, 0, err
		}
		ids[i], members[id] = id, true
	}
	all := slices.Clone(ids)
	for _, s := range sts {
		for _, nb := range s.Neighbors {
			id, err := parse(nb)
			if err != nil {
				return 0, 0, err
			}
			if !members[id] {
				members[id] = true
				all = append(all, id)
			}
		}
	}
	want := overlay.ExpectedTablesAt(all, spaces, netpeer.PlacementOf(sts))
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
	others := len(all) - len(ids)
	for _, h := range silent {
		if id, err := parse(h); err == nil && members[id] && !slices.Contains(ids, id) {
			others-- // one of ours, named by the others while it is silent
		}
	}
	if expected+extra == 0 {
		return 1, others, nil
	}
	return float64(correct) / float64(expected+extra), others, nil
}

// pollStatuses asks every peer for its status at once, each bounded by
// the client's timeout, and returns the answers and the names of the
// peers that gave none: one stopped (SIGSTOP) or hung peer costs one
// timeout per poll and leaves the others' rows in the table.
func pollStatuses(ctx context.Context, client *http.Client, peers []*child) (sts []netpeer.Status, silent []*child) {
	got := make([]netpeer.Status, len(peers))
	errs := make([]error, len(peers))
	var wg sync.WaitGroup
	for i, p := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = fetchStatus(ctx, client, p.status)
		}()
	}
	wg.Wait()
	for i, p := range peers {
		if errs[i] != nil {
			silent = append(silent, p)
			continue
		}
		sts = append(sts, got[i])
	}
	return sts, silent
}
