#!/usr/bin/env bash
# Training throughput of the GPU companion's libtorch backend (package gpu,
# built with -tags torch) against the pure-Go engine (accelerated kernels),
# forward + backward + SGD on random batches of BENCH_BATCH (64), one
# thread each, for the MLP 784-128-10 and the small CNN. Both engines are
# measured in one process (`peerlearn bench companion`), interleaved,
# BENCH_REPEAT (3) loops of BENCH_SECONDS (2) each, best kept: on a shared
# machine the best run is the least disturbed one. The device is
# BENCH_DEVICE (cpu; "auto" takes CUDA when the linked libtorch has it).
# BENCH_SMOKE=1 runs one loop of 0.2 s each (the same code paths in
# seconds, for `make bench-smoke`; its numbers mean little).
#
# The last line is machine-readable (samples/s ratios, torch / Go):
#
#   bench-companion mlp_torch_vs_go=R1 cnn_torch_vs_go=R2
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
SECS=${BENCH_SECONDS:-2}
REPEAT=${BENCH_REPEAT:-3}
WARMUP=0.3
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	SECS=0.2 REPEAT=1 WARMUP=0.05
fi
BATCH=${BENCH_BATCH:-64}
DEVICE=${BENCH_DEVICE:-cpu}

# libtorch-dev (headers and libraries for cgo), g++ and OpenBLAS: without
# it libtorch runs the reference BLAS, ~20x slower.
scripts/deps.sh companion >&2

mkdir -p bin
echo "bench-companion: building bin/peerlearn-companion (-tags torch; the shim takes ~1 min the first time)" >&2
"$GO" build -tags torch -o bin/peerlearn-companion ./cmd/peerlearn

out=$(bin/peerlearn-companion bench companion -arch mlp,small-cnn -threads 1 -batch "$BATCH" \
	-seconds "$SECS" -warmup "$WARMUP" -repeat "$REPEAT" -device "$DEVICE")
echo "$out"
grep -q 'engine=torch .* blas=openblas' <<<"$out" || [ "$DEVICE" != cpu ] ||
	echo "bench-companion: warning: libtorch is not running OpenBLAS; its numbers are not meaningful" >&2

# ratio ARCH: the torch_vs_go field of ARCH's ratio line.
ratio() { sed -n "s/^companion arch=$1 torch_vs_go=\([0-9.]*\)$/\1/p" <<<"$out"; }
mlp=$(ratio mlp)
cnn=$(ratio small-cnn)
[ -n "$mlp" ] && [ -n "$cnn" ] || { echo "bench-companion: no ratio lines in the output" >&2; exit 1; }
echo
echo "(best of $REPEAT interleaved runs of ${SECS}s each, batch $BATCH, 1 thread, $(nproc) cores, device $DEVICE)"
echo "bench-companion mlp_torch_vs_go=$mlp cnn_torch_vs_go=$cnn"
