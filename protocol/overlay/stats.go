package overlay

import (
	"fmt"
	"strings"
)

// Counts is a number per message type, indexed by MsgType.
type Counts [numMsgTypes]uint64

// Total sums the counts of the given types, or of all types if none.
func (c Counts) Total(types ...MsgType) uint64 {
	var s uint64
	if len(types) == 0 {
		for _, v := range c {
			s += v
		}
		return s
	}
	for _, t := range types {
		s += c[t]
	}
	return s
}

// Add returns c + d.
func (c Counts) Add(d Counts) Counts {
	for k := range c {
		c[k] += d[k]
	}
	return c
}

// String lists the non-zero counts as "Type=n", in wire order.
func (c Counts) String() string {
	var parts []string
	for t, v := range c {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("%v=%d", MsgType(t), v))
		}
	}
	return strings.Join(parts, " ")
}

// ConstructionTypes are the messages that build and fix the overlay:
// everything but heartbeats and upper-layer Route traffic. The paper's
// "messages per node to construct FedLay" counts these.
var ConstructionTypes = []MsgType{
	MsgJoin, MsgDiscover, MsgDiscoverReply, MsgLink, MsgHint, MsgLeave, MsgRepair, MsgRepairReply,
}

// Stats are a node's message counters since creation.
type Stats struct {
	Sent, Received Counts
	// DroppedHops counts routed messages dropped at the hop limit.
	DroppedHops uint64
	// Undeliverable counts RouteTo messages that ended at a node other
	// than their target (the target is not in the overlay).
	Undeliverable uint64
	// MergeProbes counts the Joins sent to remembered nodes to find
	// another overlay (merge.go); they are also in Sent[MsgJoin].
	MergeProbes uint64
	// Remembered counts the failed neighbours remembered for merge
	// probes, all told (merge.go): it grows with every failure seen.
	Remembered uint64
	// Stalls counts failed neighbours that spoke again, all told
	// (stall.go): false failures, each waited out longer next time.
	Stalls uint64
	// BadRecords counts peer records that did not verify, NoRecord the
	// messages refused for naming an ID without a record, MissingRecords
	// the records this node could not attach to its own messages
	// (records.go).
	BadRecords, NoRecord, MissingRecords uint64
}

// Stats returns the node's counters.
func (n *Node) Stats() Stats { return n.stats }
