package plexus

// Traffic counts messages and bytes (header plus payload).
type Traffic struct {
	Msgs, Bytes uint64
}

// Stats counts what a peer did; all counters only grow.
type Stats struct {
	// Sent and Received are per message type, indexed by MsgType.
	Sent, Received [numTypes + 1]Traffic
	// Trainings counts ReportTrained calls; TrainUnits sums the cost the
	// caller reported for them (local steps, ticks, ...).
	Trainings, TrainUnits uint64
	// Aggregations counts AggregateTasks emitted, AggTimeouts those that
	// T_agg started below the success fraction.
	Aggregations, AggTimeouts uint64
	// Escalations counts trained models re-sent to the next aggregator
	// after T_round; GaveUp the rounds abandoned after MaxAttempts.
	Escalations, GaveUp uint64
	// ResumeTimeouts counts T_round waits for a train request that did
	// not come after the previous round was announced over; Resumes the
	// rounds this peer restarted after them (resumeTimeout).
	ResumeTimeouts, Resumes uint64
	// DuplicateTrains: train requests for a round already accepted.
	DuplicateTrains uint64
	// ModelsLate: trained models for a round this peer already averaged
	// or knows to be complete; TrainedLate: own training finished after
	// the round completed (not sent).
	ModelsLate, TrainedLate uint64
	// Rejected: messages dropped by Step (bad model, stale, not for us).
	Rejected uint64
}

// TotalSent sums Sent over types.
func (s Stats) TotalSent() Traffic { return sum(s.Sent[:]) }

// TotalReceived sums Received over types.
func (s Stats) TotalReceived() Traffic { return sum(s.Received[:]) }

func sum(ts []Traffic) Traffic {
	var t Traffic
	for _, x := range ts {
		t.Msgs += x.Msgs
		t.Bytes += x.Bytes
	}
	return t
}
