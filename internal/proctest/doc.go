// Package proctest runs PeerLearn's binaries as separate processes from
// end-to-end tests: start one with its stderr in a log file (shown on
// failure), stop it with SIGTERM or kill it, pick a free port, wait for
// a listener, build a binary once per test run (with build tags), read
// a process's /status JSON, and start a `peerlearn peer` and read its
// address line.
package proctest
