// Package server is PeerLearn's bootstrap signalling server (protocol in
// package signal). It hosts one or more training tasks, each with its own
// peer set; registers peers that prove ownership of their key; hands each
// new peer 1 to 3 live contacts of its task, the ICE servers and the task
// spec; and relays SDP/ICE between the new peer and those contacts only,
// until the new peer reports its first connection or its bootstrap window
// times out. Every later connection is signalled through the overlay.
//
// Endpoints of Handler: /signal (the websocket), /healthz, GET /tasks (the
// hosted tasks and their peers now, JSON, for the page), POST /tasks (a
// page creates a task, where Config.TaskCreate allows it), /metrics
// (Prometheus; on MetricsHandler instead with Config.MetricsSeparate),
// /wasm/data/, /wasm/ (the browser peer build, optional) and / (the
// static web page, optional), each directory through an os.Root without
// dotfiles. Every response carries CSP, frame denial, Referrer-Policy and
// nosniff, and HSTS over TLS (ServeTLS: certificate files, SelfSignedTLS
// with a pinnable Fingerprint, or Autocert).
//
// Limits: registered peers (per task from the spec, and in all), pending
// handshakes, both also per client address and per /24 (/48)
// (AddrLimits), message size, messages per second per connection (token
// bucket), refused messages per connection, handshake, idle and write
// timeouts, the websocket Origin (allow-list), and a bounded send queue per
// peer. Every refusal is counted by reason (signal.Code).
//
// An embedded TURN server (pion/turn) can run beside it (StartTURN); peers
// then get short-lived TURN credentials derived from a shared secret (the
// TURN REST scheme coturn's use-auth-secret also accepts, CoturnConfig).
// It relays only to public unicast peers (TURNConfig.AllowPeers opens test
// networks), within allocation quotas per credential, per client address
// and subnet and in all (turnquota.go), and bandwidth caps, and, tied to
// the sessions (TURN.TieToSessions, TURNAuth.OnSessionEnd), only for
// registered peers.
//
// Behind a reverse proxy the client address is the one a trusted proxy
// forwards (Config.Proxies, clientip.go); the limits, the TURN quotas and
// the logs use it.
package server
