// Package signal is PeerLearn's bootstrap signalling protocol and its
// client. A new peer dials the signalling server over a websocket,
// proves it owns an ed25519 key, names its training task and gets 1 to 3
// live contacts of that task, the ICE servers (STUN/TURN) to use and the
// task's spec. The server then relays SDP offers/answers and ICE candidates
// between the new peer and those contacts only, and only until the new peer
// reports its first connection (or a timeout): every later connection is
// signalled through the overlay, so training goes on without the server.
// The server itself is package signal/server (kept apart so that the
// browser build links neither Prometheus nor a TURN server).
//
// # Wire protocol
//
// Every message is one websocket text message holding one JSON object
//
//	{"v": 1, "type": T, "<payload>": {...}}
//
// with the protocol version v (ProtocolVersion; any other is refused with
// CodeVersion) and a type T (MsgType, a number) that names the one payload
// field present. A session:
//
//	server -> client  challenge {nonce, pow_bits}
//	client -> server  hello     {id, public_key, task, sig, pow, token}  sig = ed25519 over HelloMessage
//	server -> client  welcome   {contacts, ice_servers, task, bootstrap_ms, token, admission_key}
//	both ways         relay     {from, to, kind, data}       (bootstrap window only)
//	client -> server  connected {peer}                        an open data channel with peer:
//	                                                          a newcomer's claim (closes its window),
//	                                                          or its contact's confirmation of it
//	client -> server  ping; server -> client pong            keepalive
//	either            bye {reason}; server -> client error {code, text}
//
// The server believes a newcomer's "connected" claim (and hands it to
// later newcomers ahead of others) only once the contact, itself
// established, sends connected naming the newcomer on its own session:
// a peer sends it for every connection it answered through the server
// (signal/server claims.go).
//
// Message types, error codes and relay kinds are numbers fixed forever:
// new ones are appended, none is renumbered or reused.
//
// A peer is named by its ident.Peer, the SHA-256 of its ed25519 public
// key: the same ID the overlay and the model exchange use.
//
// The welcome's token admits the peer's key to the task (types/admission):
// the hello's pow is the key's proof of work at the challenge's
// difficulty, and a hello may present the token the peer already holds
// (a re-join), which the server renews without charging its address's
// admission limit. The client checks the token (admission.go) before
// Dial returns.
package signal
