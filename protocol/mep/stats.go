package mep

// Stats counts what a peer's state machine did; all counters only grow.
type Stats struct {
	OffersSent       uint64 // MsgOffer emitted
	OffersSkipped    uint64 // pair periods with nothing new for the neighbour
	OfferTimeouts    uint64 // offers with no reply within OfferTimeout
	HavesSent        uint64 // MsgHave emitted for a model held
	OffersDeclined   uint64 // MsgHave emitted once done (Config.MaxRounds): nothing fetched
	NeedsSent        uint64 // MsgNeed emitted
	ModelsSent       uint64 // MsgModel emitted
	DuplicateNeeds   uint64 // MsgNeed for a model already sent (not resent)
	SendsFailed      uint64 // ReportSendFailed calls that cleared a send
	ModelsReceived   uint64 // models stored as a neighbour's freshest
	ModelsStale      uint64 // models dropped: not newer than the one held
	ModelsRejected   uint64 // models refused (ErrBadModel)
	TransferTimeouts uint64 // MsgNeed with no model within TransferTimeout
	Dropped          uint64 // messages from non-neighbours or not for us
	Rounds           uint64 // rounds emitted
	RoundsDelayed    uint64 // ticks a due round waited (training or join)
}
