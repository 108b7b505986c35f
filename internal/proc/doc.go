// Package proc runs a child process for the tools and tests that drive
// PeerLearn's binaries (the demo, the network lab, end-to-end tests): the
// child's stdout is read line by line (handed to a channel, remembered,
// its first line waited for), its stderr goes to a log file or a bounded
// in-memory log, and it is stopped with SIGTERM and a grace period or
// killed. A command prefix (`ip netns exec NS`) runs it elsewhere.
package proc
