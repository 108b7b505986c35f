package plexus

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Member is a peer known to the view and its advertised bandwidth
// (bytes per second, or any unit shared by all peers).
type Member struct {
	ID        ident.Peer
	Bandwidth uint64
}

// View is a peer's membership view (Plexus Sec. 3.3): every peer it
// knows, with the bandwidth each advertised. Samples and aggregators are
// pure functions of the view and the round, so peers with equal views
// agree on them. Not safe for concurrent use.
type View struct {
	members map[ident.Peer]uint64
	// missed holds the members that missed their aggregator role (see
	// Missed): Ranking puts them last. A subset of members.
	missed  map[ident.Peer]bool
	version uint64
	cache   [4]cached // recent samples, for the aggregator's repeated calls
	next    int
}

type cached struct {
	version, round uint64
	s              int
	sample         []ident.Peer
}

// NewView returns a view holding members.
func NewView(members ...Member) (*View, error) {
	v := &View{members: make(map[ident.Peer]uint64, len(members)), missed: map[ident.Peer]bool{}}
	for _, m := range members {
		if _, err := v.Add(m.ID, m.Bandwidth); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Add inserts id or updates its bandwidth; it reports whether the view
// changed. A zero ID or bandwidth is an error.
func (v *View) Add(id ident.Peer, bandwidth uint64) (bool, error) {
	if id == (ident.Peer{}) || bandwidth == 0 {
		return false, fmt.Errorf("%w: %v with bandwidth %d", ErrView, id, bandwidth)
	}
	if b, ok := v.members[id]; ok && b == bandwidth {
		return false, nil
	}
	v.members[id] = bandwidth
	v.version++
	return true, nil
}

// Remove deletes id; it reports whether it was there.
func (v *View) Remove(id ident.Peer) bool {
	if _, ok := v.members[id]; !ok {
		return false
	}
	delete(v.members, id)
	delete(v.missed, id)
	v.version++
	return true
}

// Missed records that member id missed its aggregator role (a member's
// model went unanswered for T_round, or another rank aggregated a round
// id was ranked ahead for): Ranking puts it behind every member that
// has not, until Heard. Samples do not change: id is still sampled, it
// only stops being picked to aggregate. Members never leave a view
// (package method), so without this a dead member with the best rank
// made every round that sampled it wait T_round for it. It reports
// whether the view's ranking changed; an unknown id is ignored.
func (v *View) Missed(id ident.Peer) bool {
	if _, ok := v.members[id]; !ok || v.missed[id] {
		return false
	}
	v.missed[id] = true
	return true
}

// Heard clears Missed for id: a message from it shows it is alive. It
// reports whether id had been missed.
func (v *View) Heard(id ident.Peer) bool {
	if !v.missed[id] {
		return false
	}
	delete(v.missed, id)
	return true
}

// MissedMembers returns the members ranked last for a missed aggregator
// role, sorted by ID.
func (v *View) MissedMembers() []ident.Peer {
	out := make([]ident.Peer, 0, len(v.missed))
	for id := range v.missed {
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b ident.Peer) int { return bytes.Compare(a[:], b[:]) })
	return out
}

// Len returns the number of members.
func (v *View) Len() int { return len(v.members) }

// Bandwidth returns id's advertised bandwidth and whether id is known.
func (v *View) Bandwidth(id ident.Peer) (uint64, bool) {
	b, ok := v.members[id]
	return b, ok
}

// Members returns the members sorted by ID.
func (v *View) Members() []Member {
	out := make([]Member, 0, len(v.members))
	for id, b := range v.members {
		out = append(out, Member{id, b})
	}
	slices.SortFunc(out, func(a, b Member) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	return out
}

// SampleKey is the sort key of id in round k: SHA-256(id || k), k as 8
// big-endian bytes (Algorithm 1's hash(j + k)).
func SampleKey(id ident.Peer, k uint64) [32]byte {
	var buf [40]byte
	copy(buf[:32], id[:])
	binary.BigEndian.PutUint64(buf[32:], k)
	return sha256.Sum256(buf[:])
}

// Sample returns S^k: the first s members of the view sorted by
// SampleKey(id, k) (Algorithm 1), all of them if the view is smaller.
func (v *View) Sample(k uint64, s int) []ident.Peer {
	for _, c := range v.cache {
		if c.sample != nil && c.version == v.version && c.round == k && c.s == s {
			return slices.Clone(c.sample)
		}
	}
	type keyed struct {
		key [32]byte
		id  ident.Peer
	}
	all := make([]keyed, 0, len(v.members))
	for id := range v.members {
		all = append(all, keyed{SampleKey(id, k), id})
	}
	slices.SortFunc(all, func(a, b keyed) int {
		if c := bytes.Compare(a.key[:], b.key[:]); c != 0 {
			return c
		}
		return bytes.Compare(a.id[:], b.id[:])
	})
	out := make([]ident.Peer, min(max(s, 0), len(all)))
	for i := range out {
		out[i] = all[i].id
	}
	v.cache[v.next] = cached{v.version, k, s, out}
	v.next = (v.next + 1) % len(v.cache)
	return slices.Clone(out)
}

// Ranking returns S^k ordered by advertised bandwidth, largest first,
// ties to the smaller ID, the members that missed their aggregator role
// (Missed) after all others: rank 0 is Algorithm 1's aggregator, the
// next ranks are the fallback aggregators (see the package comment).
func (v *View) Ranking(k uint64, s int) []ident.Peer {
	r := v.Sample(k, s)
	slices.SortFunc(r, func(a, b ident.Peer) int {
		if ma, mb := v.missed[a], v.missed[b]; ma != mb {
			if ma {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(v.members[b], v.members[a]); c != 0 {
			return c
		}
		return bytes.Compare(a[:], b[:])
	})
	return r
}

// Aggregator returns a^k, Ranking's first: the member of S^k with the
// largest bandwidth (ties to the smaller ID) among those not Missed;
// false for an empty view.
func (v *View) Aggregator(k uint64, s int) (ident.Peer, bool) {
	r := v.Ranking(k, s)
	if len(r) == 0 {
		return ident.Peer{}, false
	}
	return r[0], true
}

// Version counts the view's changes: equal versions, equal views.
func (v *View) Version() uint64 { return v.version }
