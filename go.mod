module github.com/peerlearn/peerlearn

go 1.26
