// Package rtc is PeerLearn's WebRTC transport: one pion data channel per
// peer, signed and replay-checked control frames, chunked model transfers
// under flow control, and connection signalling through the signalling
// server (first connection only) or through the peers themselves.
//
// # Frames
//
// Every data channel message is a frame (frame.go): a signed control
// frame (overlay messages, application/MEP messages, routed signalling,
// transfer manifests and results) or an unsigned chunk of a transfer. A
// control frame carries a sequence number and an ed25519 signature over a
// domain tag, sender ID, receiver ID and every byte before the signature.
// The receiver refuses, counts (Stats) and logs frames that are too large,
// of an unknown version, type or kind, malformed, badly signed, or
// replayed (a sequence number seen before or older than ReplayWindow
// below the highest seen: a window rather than "greater than the last"
// because a browser hands over messages on one goroutine each, not
// strictly in order); the connection stays up.
//
// # Transfers
//
// A model goes as a signed Manifest (size, chunk size, SHA-256, model
// fingerprint, task hash, application metadata), then chunks of
// Config.ChunkSize bytes (64 KiB; every message is far under the 256 KiB
// data channel limit) at their offsets. The sender pauses while the
// channel's buffer is above HighWater (4 MiB) or above MaxQueueDelay
// worth of the measured drain rate, resuming on BufferedAmountLow
// (LowWater, 1 MiB) or a short poll. The receiver hands the bytes up only
// when every chunk is in and the hash matches, and answers with a signed
// Result; a transfer that stalls (TransferTimeout), fails its hash, or
// loses its connection is dropped whole. The sender retries a failed
// attempt (TransferRetries) with a new transfer ID and reports the
// outcome (EventSent, EventSendFailed).
//
// # Connections and signalling
//
// Manager implements overlay.Transport. Sending to a peer without a
// connection creates one: the offer (non-trickle: ICE gathering runs to
// completion, every candidate in the SDP) is a Session signed with the
// peer's key, binding the DTLS fingerprint to its ID. It travels through
// the signalling server when the peer is a bootstrap contact and this
// peer's bootstrap window is open (AttachSignal), or when the peer's own
// bootstrap offer came that way and no connection with it has opened or
// failed since (the server relays only inside a newcomer's window and
// does not say which relay it refused), else as an Envelope hop
// by hop over open data channels towards the target (route.go: direct,
// source route back along an offer's path, crumbs left by the overlay's
// routed messages, then greedy by ring coordinates); the answer comes
// back the same way. Frames queue (bounded) until the channel opens. When
// two peers offer to each other at once, the smaller ID's offer wins. A
// failed attempt backs off (RetryBackoff doubling to MaxRetryBackoff).
// Why an attempt failed is diagnosed from what ICE had (diagnose.go: the
// ICE servers offered, each side's candidates, the STUN mappings) when
// ICE fails or ConnectTimeout abandons it: counted per cause
// (Stats.FailureCauses), the latest in Stats.LastFailure, logged when
// the cause changes.
// Connections to peers that are not overlay neighbours (SetNeighbors) are
// closed after Grace. Native peers take loopback-only settings from
// Config.LoopbackOnly (settings_other.go); under GOOS=js the browser's
// RTCPeerConnection is used through pion's wrapper (settings_js.go), with
// the same code otherwise.
//
// # Policy and shell
//
// What to do about connections is decided by a sans-I/O core, policy
// (policy*.go), in the manner of the overlay's Node: which connections
// to start, accept (crossing offers, replaced ones), keep and drop
// (ConnectTimeout, Grace, an offer whose routed path closed), when to
// back off, whether a session goes through the signalling server (the
// bootstrap window) or is routed (crumbs, next hops), and which control
// frames and offers are replays. It has no goroutines, no clock (every
// input carries the time), no sockets and no pion types; every map it
// keeps is bounded (expired on Tick, and at most maxRemembered entries
// each). It is tested by golden scripts on virtual time
// (testdata/*.txt). The Manager is the shell around it: pion peer
// connections and data channels, frames, transfers and the signalling
// client. It feeds the policy what happened (Manager.step), carries out
// the actions the policy returns (tear a connection down, report the
// bootstrap to the server), and calls the policy's Tick from a small
// ticker with its clock's reading.
//
// # What a peer may cost
//
// Any peer may be hostile, and IDs cost nothing, so what a peer can make
// this one hold is budgeted (resource.go, policy_budget.go,
// policy_strikes.go), after libp2p's resource manager. Incoming transfer
// memory is reserved chunk by chunk as the bytes arrive, against the
// peer's scope (MaxIncoming transfers, one by default) and the system's
// (IncomingTransfers), each a multiple of the transfer limit, which the
// runtime sets to the task's model size (SetTransferLimit); a manifest is
// checked (our chunk size, the task, the limit) before anything is
// allocated for it, and a peer's newer manifest supersedes its transfer
// in flight (dropped and released: a newer model makes it useless), so
// one peer holds at most one model's worth. A control frame's size, then
// its sender's frame budget (MaxFrameRate in bursts of FrameBurst, a
// token bucket per peer: policy_rate.go), are checked before its
// signature. Offers being answered are bounded in all
// (MaxPendingOffers) and per origin (MaxOffersPerOrigin: the neighbour
// that relayed them, or the server); connections by MaxConnections.
// Offers through the server are answered at most MaxServerOffers per
// sender per ServerOfferPeriod, a dead one (no workable candidate, or not
// open in time) is a strike and uses its sender's budget up, and a full
// server share gives the oldest slot to the newest offer
// (policy_serveroffers.go). A connection answered through the server is
// reported to it when it opens: the contact's confirmation, without which
// the server does not believe the newcomer's own claim.
// Every refused frame is a strike: MaxStrikes within StrikeWindow ban
// the peer for BanTime (its connection closed, its offers refused).
// Message handlers at once are bounded (a browser runs one goroutine per
// message). Refusal log lines are rate-limited: the first of each peer
// and reason per 10 s, then one summary line (refusal_log.go). Stats
// counts every refusal by reason; Resources tells what is held.
//
// # Concurrency
//
// Manager's methods are safe for concurrent use and do not block on the
// network. Everything it reports arrives on Events (messages, transfers,
// connections up and down), which the owner must drain; Logf is called
// from many goroutines. The pure codecs (frames, sessions, envelopes,
// manifests) have no state; the policy is serialised by the Manager.
package rtc
