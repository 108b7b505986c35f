#!/usr/bin/env bash
# Model transfer throughput: a 10 MiB model sent between two real pion
# WebRTC peers on 127.0.0.1 through rtc's transfer path (signed manifest,
# 64 KiB chunks under flow control, SHA-256 checked by the receiver)
# against plain TCP on 127.0.0.1 (the same bytes and hash check), each
# BENCH_RUNS times, interleaved, on connections opened beforehand
# (`peerlearn bench transfer`). MB/s are medians, MB = 10^6 bytes.
# BENCH_SMOKE=1 sends 1 MiB once each (the same code path in seconds, for
# `make bench-smoke`; its numbers mean little). The last line is
# machine-readable:
#
#   bench-transfer webrtc_mbs=X tcp_mbs=Y ratio=R      (R = X/Y)
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
RUNS=${BENCH_RUNS:-5}
SIZE=${BENCH_SIZE:-10485760}
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	RUNS=1 SIZE=1048576
fi

mkdir -p bin
"$GO" build -o bin/peerlearn ./cmd/peerlearn
out=$(timeout 300 bin/peerlearn bench transfer -size "$SIZE" -runs "$RUNS")
line=$(grep '^bench-transfer ' <<<"$out")
grep -v '^bench-transfer ' <<<"$out"
echo "$line"
