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
# and last a summary for `make bench-smoke`:
#
#   bench-live methods=4 peers=N agree_ok=0|1   (1: every |A - B| <= 0.03)
#
# Methods: gossip, dpsgd, pens, plexus.
# BENCH_SMOKE=1: 4 peers, 3 rounds (PENS: 12, past its 10 step-1 rounds).
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
N=${BENCH_PEERS:-6}
ROUNDS=${BENCH_ROUNDS:-12}
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	N=4 ROUNDS=3
fi
mkdir -p bin
"$GO" build -o bin/peerlearn ./cmd/peerlearn
"$GO" build -o bin/signalserver ./cmd/signalserver
out=$(timeout 1200 bin/peerlearn bench live -n "$N" -rounds "$ROUNDS" -signalserver bin/signalserver)
while read -r line; do
	case $line in
	"live method=pens "*) scripts/check-bench-line.sh live method peers acc_real acc_sim precision <<<"$line" >/dev/null ;;
	"live "*) scripts/check-bench-line.sh live method peers acc_real acc_sim <<<"$line" >/dev/null ;;
	esac
done <<<"$out"
grep '^live ' <<<"$out"
awk '/^live /{ n++; for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	d = v["acc_real"] - v["acc_sim"]; if (d < 0) d = -d; if (d > 0.03) bad = 1; p = v["peers"] }
	END { printf "bench-live methods=%d peers=%d agree_ok=%d\n", n, p, !bad }' <<<"$out"
