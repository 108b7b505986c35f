// Command signalserver is PeerLearn's bootstrap-only signalling server
// (package signal/server): it hosts training tasks, hands new peers a few
// live contacts and the ICE servers, relays SDP/ICE for their first
// connection only, and serves the web page and the wasm peer.
//
//	signalserver -addr 127.0.0.1:8080 -task tasks.json -wasm bin/web
//	signalserver -addr :443 -tls-autocert learn.example.org -tls-http-addr :80 -metrics-addr 127.0.0.1:9090 -wasm bin/web
//	signalserver -addr 0.0.0.0:8443 -tls-self-signed peerlearn.lan,192.168.1.5 -wasm bin/web   # LAN demo: prints the fingerprint
//	signalserver -addr 127.0.0.1:8080 -trusted-proxies 127.0.0.1/32 -turn -turn-addr 0.0.0.0:3478 -turn-relay-ip 203.0.113.5   # behind nginx or Caddy
//
// Without -turn or -ice-servers it answers STUN on the UDP twin of -addr
// (-stun-addr) and warns that no TURN is configured.
//
// SIGINT or SIGTERM shuts it down gracefully.
package main
