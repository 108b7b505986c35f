#!/usr/bin/env bash
# Training throughput of the GPU companion's libtorch backend (package gpu,
# built with -tags torch) against the pure-Go engine (accelerated kernels),
# forward + backward + SGD on random batches of BENCH_BATCH (64), one
# thread each, for the MLP 784-128-10 and the small CNN. Both engines are
# measured in one process (`peerlearn bench companion`), interleaved,
# BENCH_REPEAT (3) loops of BENCH_SECONDS (2) each, best kept: on a shared
# machine the best run is the least disturbed one. The device is
# BENCH_DEVICE (cpu; "auto" takes CUDA when the linked libtorch has it).
#
# The last line is machine-readable (samples/s ratios, torch / Go):
#
#   bench-companion mlp_torch_vs_go=R1 cnn_torch_vs_go=R2
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
SECS=${BENCH_SECONDS:-2}
REPEAT=${BENCH_REPEAT:-3}
BATCH=${BENCH_BATCH:-64}
DEVICE=${BENCH_DEVICE:-cpu}

# libtorch-dev (headers and libraries for cgo) and OpenBLAS: without it
# libtorch runs the reference BLAS, ~20x slower.
need=()
for p in libtorch-dev libopenblas0-pthread; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "bench-companion: installing ${need[*]}" >&2
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

mkdir -p bin
echo "bench-companion: building bin/peerlearn-companion (-tags torch; the shim takes ~1 min the first time)" >&2
"$GO" build -tags torch -o bin/peerlearn-companion ./cmd/peerlearn

out=$(bin/peerlearn-companion bench companion -arch mlp,small-cnn -threads 1 -batch "$BATCH" \
	-seconds "$SECS" -repeat "$REPEAT" -device "$DEVICE")
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
