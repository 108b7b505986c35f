// Package signal is PeerLearn's bootstrap signalling: the websocket protocol
// a new peer uses to register with cmd/signalserver, get a few live contacts
// and relay SDP/ICE for its first WebRTC connection. Every later connection is
// signalled through the overlay itself, so training goes on without the server.
//
// The protocol and client land with the WebRTC network work; this package
// holds only what is implemented so far.
package signal
