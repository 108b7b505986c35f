// Command signalserver is PeerLearn's bootstrap-only signalling server
// (package signal/server): it hosts training tasks, hands new peers a few
// live contacts and the ICE servers, relays SDP/ICE for their first
// connection only, and serves the web page and the wasm peer.
//
//	signalserver -addr 127.0.0.1:8080 -task tasks.json -wasm bin/web
//
// SIGINT or SIGTERM shuts it down gracefully.
package main
