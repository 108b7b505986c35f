#!/usr/bin/env bash
# Simulator vs real network, per method (`peerlearn bench live`): the same
# task spec (MNIST, small n, max_rounds) run by real peers (separate
# `peerlearn peer` processes over WebRTC on 127.0.0.1, with bin/signalserver)
# and by `peerlearn sim train -spec` (the same shards, cores and overlay
# neighbour sets, in virtual time). One line per method, each checked by
# scripts/check-bench-line.sh:
#
#   live method=M peers=N acc_real=A acc_sim=B            (PENS: precision=P)
#
# and last a summary for `make bench-smoke` (scripts/live-agree.sh):
#
#   bench-live methods=4 peers=N agree_ok=0|1   (1: every |A - B| <= 0.03)
#
# Methods: gossip, dpsgd, pens, plexus. 6 peers, 12 rounds (PENS at
# least 12, past its 10 step-1 rounds), Gossip 24: one of its trainings
# merges one model where a D-PSGD round mixes every neighbour's.
#
# BENCH_SMOKE=1 (`make bench-smoke`, and `make test`): 4 peers, 16 rounds,
# Gossip 24, the four methods' real swarms at the same time (-concurrent:
# about the longest one's time instead of the sum; each peer's measured
# speed, which the simulator takes, includes the others' load), and the
# agreement is asserted: the script fails, naming the methods, when
# agree_ok=0 (BENCH_LIVE_ASSERT=1 asserts it at any size).
# With fewer rounds a single run is a draw from a wide spread: the
# simulator alone, its peers' speeds varied 0.25-4x, spread 3.6 (Gossip)
# and 4.5 points (Plexus) at 10 rounds, 1.5 and 0.9 at 24 and 16 (see
# docs/RESULTS.md, "Simulator and real peers agree").
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
N=${BENCH_PEERS:-6}
ROUNDS=${BENCH_ROUNDS:-12}
ROUNDS_FOR=${BENCH_ROUNDS_FOR:-gossip=24}
ASSERT=${BENCH_LIVE_ASSERT:-0}
CONCURRENT=()
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	N=4 ROUNDS=16 ASSERT=1 CONCURRENT=(-concurrent)
fi
mkdir -p bin
"$GO" build -o bin/peerlearn ./cmd/peerlearn
"$GO" build -o bin/signalserver ./cmd/signalserver
out=$(timeout 1200 bin/peerlearn bench live -n "$N" -rounds "$ROUNDS" -rounds-for "$ROUNDS_FOR" -signalserver bin/signalserver "${CONCURRENT[@]}")
while read -r line; do
	case $line in
	"live method=pens "*) scripts/check-bench-line.sh live method peers acc_real acc_sim precision <<<"$line" >/dev/null ;;
	"live "*) scripts/check-bench-line.sh live method peers acc_real acc_sim <<<"$line" >/dev/null ;;
	esac
done <<<"$out"
grep '^live ' <<<"$out"
if [ "$ASSERT" = 1 ]; then
	scripts/live-agree.sh -assert <<<"$out"
else
	scripts/live-agree.sh <<<"$out"
fi
