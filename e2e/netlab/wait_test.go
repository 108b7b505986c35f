package netlab

import "github.com/peerlearn/peerlearn/internal/proctest"

// waitUntil is proctest.WaitUntil: bounded condition polling.
var waitUntil = proctest.WaitUntil
