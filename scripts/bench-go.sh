#!/usr/bin/env bash
# Go benchmarks of the kernels (internal/f32), of training (engine/nn) and
# of the default robust aggregation (engine/aggregate),
# `go test -bench`, BENCH_TIME (200ms) per benchmark. Each kernel is timed
# against its pure-Go reference (the code wasm runs) in the same run; the
# summary compares them (geometric mean over the GEMM shapes of one
# training step), names nn's training samples/s, batch 64, 1 thread
# for the MLP, and times the default rule clipped-fedlay against itself
# without the coordinate radius (ablate-coord-fedlay; 8 neighbours,
# 250k parameters): the radius's price, time per aggregation with over
# without, and a round of a peer of the default task with the opt-in
# checks (`peerlearn peer -health -suspend`) against one without
# (peer/node's BenchmarkRoundChecks: make demo's shard, 8 neighbours):
# what the checks add to a volunteer's CPU. The last line is
# machine-readable:
#
#   bench-go gemm_accel_vs_ref=R1 dot_accel_vs_ref=R2 axpy_accel_vs_ref=R3 nn_mlp_sps=S1 nn_small_cnn_sps=S2 robust_coord_vs_l2=R4 round_checks_vs_default=R5
#
# BENCH_SMOKE=1 runs each benchmark once (-benchtime 1x): the same code
# paths in seconds, for `make bench-smoke`; its numbers mean nothing.
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
TIME=${BENCH_TIME:-200ms}
[ "${BENCH_SMOKE:-}" = 1 ] && TIME=1x

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$GO" test -count=1 -run '^$' -bench . -benchtime "$TIME" ./internal/f32/ ./engine/nn/ ./engine/aggregate/ ./peer/node/ >"$log" 2>&1; then
	cat "$log" >&2
	echo "bench-go: FAILED" >&2
	exit 1
fi
cat "$log"

# The summary: awk reads "BenchmarkX/sub/variant-P  N  T ns/op  V UNIT"
# lines (the -P suffix is GOMAXPROCS, absent when it is 1).
awk '
function metric(unit,   i) { for (i = 3; i < NF; i++) if ($(i + 1) == unit) return $i; return "" }
/^Benchmark/ {
	name = $1
	sub(/-[0-9]+$/, "", name)
	n = split(name, p, "/")
	if (p[1] == "BenchmarkGemm" && n == 3) gemm[p[2], p[3]] = metric("GFLOP/s")
	else if (p[1] == "BenchmarkGemm") next
	else if (p[1] == "BenchmarkDot" || p[1] == "BenchmarkAxpy") vec[p[1], p[2]] = metric("GFLOP/s")
	else if (p[1] == "BenchmarkTrainBatch") train[p[2]] = metric("samples/s")
	if (p[1] == "BenchmarkGemm") shapes[p[2]] = 1
	if (p[1] == "BenchmarkRobustFedLay250k") robust[p[2]] = $3
	if (p[1] == "BenchmarkRoundChecks") checks[p[2]] = $3
}
END {
	logsum = 0; k = 0
	for (s in shapes) {
		if (gemm[s, "ref"] > 0 && gemm[s, "accel"] > 0) { logsum += log(gemm[s, "accel"] / gemm[s, "ref"]); k++ }
	}
	if (k == 0) { print "bench-go: no accelerated GEMM results (this CPU lacks AVX2+FMA?)" > "/dev/stderr"; exit 1 }
	if (vec["BenchmarkDot", "accel=false"] <= 0 || vec["BenchmarkAxpy", "accel=false"] <= 0 || train["mlp"] <= 0 || train["small-cnn"] <= 0) {
		print "bench-go: missing Dot, Axpy or TrainBatch results" > "/dev/stderr"; exit 1
	}
	if (robust["rule=ablate-coord-fedlay"] <= 0 || robust["rule=clipped-fedlay"] <= 0) {
		print "bench-go: missing RobustFedLay250k results" > "/dev/stderr"; exit 1
	}
	if (checks["checks=default"] <= 0 || checks["checks=health+suspend"] <= 0) {
		print "bench-go: missing RoundChecks results" > "/dev/stderr"; exit 1
	}
	printf "\nbench-go gemm_accel_vs_ref=%.2f dot_accel_vs_ref=%.2f axpy_accel_vs_ref=%.2f nn_mlp_sps=%.0f nn_small_cnn_sps=%.0f robust_coord_vs_l2=%.2f round_checks_vs_default=%.2f\n",
		exp(logsum / k),
		vec["BenchmarkDot", "accel=true"] / vec["BenchmarkDot", "accel=false"],
		vec["BenchmarkAxpy", "accel=true"] / vec["BenchmarkAxpy", "accel=false"],
		train["mlp"], train["small-cnn"],
		robust["rule=clipped-fedlay"] / robust["rule=ablate-coord-fedlay"],
		checks["checks=health+suspend"] / checks["checks=default"]
}' "$log"
