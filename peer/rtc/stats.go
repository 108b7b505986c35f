package rtc

// Stats are a Manager's counters since it started.
type Stats struct {
	// Open is the number of open connections now.
	Open int
	// FramesIn and FramesOut count data channel messages, BytesIn and
	// BytesOut their bytes.
	FramesIn, FramesOut, BytesIn, BytesOut uint64
	// FramesOutUnordered counts the frames of FramesOut that went on the
	// unordered overlay channel (ctlchannel.go).
	FramesOutUnordered uint64

	// Refused frames and sessions, by reason; the connection stays up.
	BadSignature uint64 // signature or key does not verify
	Replayed     uint64 // sequence number seen or too old; stale or repeated session
	BadVersion   uint64 // unknown frame/session/envelope/manifest version
	Oversized    uint64 // over a size limit
	UnknownKind  uint64 // unknown frame type or control kind
	Malformed    uint64 // anything else that does not parse or fit
	OverBudget   uint64 // transfers dropped: their memory went over the peer's or the system's budget

	// Abuse: what the budgets and bans refused.
	LogsSuppressed  uint64 // refusal log lines folded into a summary
	Bans            uint64 // peers banned for too many refused frames
	Denied          uint64 // peers denied by the application (Manager.Deny: netpeer's repeat offenders)
	BannedRefused   uint64 // frames and offers refused from banned peers
	OffersOverQuota uint64 // offers refused: too many being answered at once (all, or from one origin), or ServerOffersRefused
	// ServerOffersRefused: offers relayed by the signalling server refused
	// because their sender had used up its MaxServerOffers (or sent a
	// dead one); DeadOffers: dead offers charged to their senders (no
	// workable candidate, or not open within ConnectTimeout).
	ServerOffersRefused, DeadOffers uint64
	// OffersEvicted: offers through the server being answered whose slot
	// a newer one took (the server's share was full).
	OffersEvicted  uint64
	InboundDropped uint64 // messages dropped on arrival: too many handlers at once (browsers: a goroutine each)
	RateLimited    uint64 // control frames over their sender's frame budget, refused unverified

	// Sending.
	QueueDropped  uint64 // frames dropped: the queue of a connecting peer was full
	BufferDropped uint64 // control frames dropped behind MaxBuffered bytes
	Unreachable   uint64 // sends refused: backing off from a failed attempt, or at MaxConnections

	// Connections.
	ConnectsStarted, ConnectsOpened, ConnectsFailed, ConnectsClosed uint64
	StraysClosed                                                    uint64 // closed after Grace as non-neighbours
	// FailureCauses counts failed connections by their diagnosed cause
	// (diagnose.go); LastFailure is the latest diagnosis.
	FailureCauses FailureCounts
	LastFailure   Diagnosis

	// Signalling.
	SessionsAccepted, SessionsRefused                  uint64
	SignalsForwarded, SignalsDelivered, SignalsDropped uint64

	// Transfers.
	TransfersSent, TransfersReceived      uint64
	TransfersFailedOut, TransfersFailedIn uint64 // never applied
	TransfersRefused, HashMismatches      uint64
	TransferRetries, StrayChunks          uint64
	TransfersSuperseded                   uint64 // incoming ones dropped for a newer manifest from the same peer
}

// Refused is the number of refused frames and sessions.
func (s Stats) Refused() uint64 {
	return s.BadSignature + s.Replayed + s.BadVersion + s.Oversized + s.UnknownKind + s.Malformed
}
