// Package demo runs `make demo`: a signalling server and N native peers as
// separate processes on this machine, training MNIST together over real
// WebRTC with FedLay's Model Exchange Protocol. It polls every peer's
// status endpoint, prints a live table (time, mean/min/max accuracy,
// overlay correctness, bytes moved), stops at a target accuracy or a time
// limit, writes a CSV and a PNG of accuracy over time, and ends with
//
//	demo peers=8 acc_mean=A correctness=C mb_per_peer=M
//
// Correctness is checked outside the peers: the neighbour sets the peers
// report against the ones computed from all their IDs (overlay.ExpectedTables).
package demo
