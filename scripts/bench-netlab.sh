#!/usr/bin/env bash
# The connectivity matrix of the network lab (e2e/netlab; needs root,
# ip, nft): native peers behind a full-cone NAT (two), two symmetric NATs,
# a UDP-blocked home and four port-restricted cones (plain masquerade; two
# drop unsolicited UDP, two reject it) train MNIST to 80% through the
# lab's signalling and TURN server; every pair's selected ICE path and
# connection time is recorded, and compared with the path the two NATs
# allow (netlab.ExpectedPath). Then two rtc managers in a symmetric home
# send a 10 MiB model to each other through TURN only, 3 times (the
# relay's MB/s, median). BENCH_SMOKE=1 runs four peers (full cone,
# symmetric, UDP blocked, port-restricted), a 50% target and one 1 MiB
# relay transfer. The last line is machine-readable:
#
#   netlab pairs=N direct=D relay=R failed=F wrong_path_failed=W connect_p50_ms=A connect_p95_ms=B relay_mbs=T acc_mean=X
#
# The same on shaped home links (this kernel has no netem: the lab
# delays and drops frames itself), after this script built bin/:
#   bin/netlab bench -bin bin -data .data -delay 50ms -jitter 25ms -loss 0.01
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
DATA=${PEERLEARN_DATA:-$PWD/.data}
scripts/deps.sh netlab
mkdir -p bin
"$GO" build -o bin/ ./cmd/peerlearn ./cmd/signalserver ./e2e/netlab/cmd/netlab >&2
smoke=()
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	smoke=(-smoke)
fi
out=$(timeout 600 bin/netlab bench -bin bin -data "$DATA" "${smoke[@]}")
line=$(grep '^netlab ' <<<"$out")
grep -v '^netlab ' <<<"$out"
echo "$line"
