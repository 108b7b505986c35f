#!/usr/bin/env bash
# Training throughput of PeerLearn's Go engine against PyTorch (libtorch via
# Debian's python3-torch, OpenBLAS), batch 64, forward + backward + SGD on
# random data, for the MLP 784-128-10 and the small CNN:
#
#   go native, 1 thread       bin/peerlearn bench train -threads 1
#   go native, all threads    bin/peerlearn bench train -threads 0
#   go native, pure Go        ... -accel=false (the kernels wasm runs, for reference)
#   go wasm under node        bin/peerlearn.wasm (GOOS=js), single-threaded,
#                             with f32's SIMD128 module and with pure Go,
#                             interleaved in one process (-vs-go)
#   torch, 1 thread           scripts/bench_torch.py
#
# Each configuration runs BENCH_REPEAT (3) times (interleaved) for
# BENCH_SECONDS (3) and keeps its best: on a shared machine the best run is
# the least disturbed one. BENCH_SMOKE=1 runs each once for 0.2 s (the same
# code paths in seconds, for `make bench-smoke`; its numbers mean little).
# The last line is machine-readable:
#
#   bench-train mlp_go_vs_torch=R1 cnn_go_vs_torch=R2 mlp_wasm_vs_go=R3
#               mlp_simd_ratio=Q1 cnn_simd_ratio=Q2 mlp_simd_vs_go=W1 cnn_simd_vs_go=W2
#
# (samples/s ratios, single thread: Go/torch for each architecture,
# pure-Go wasm/Go-native for the MLP, wasm with SIMD128 over pure-Go wasm
# (Q, from the interleaved runs) and wasm with SIMD128 over Go-native (W)
# for each architecture).
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
SECS=${BENCH_SECONDS:-3}
REPEAT=${BENCH_REPEAT:-3}
WARMUP=0.5
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	SECS=0.2 REPEAT=1 WARMUP=0.2 # V8 tiers the wasm up within the warm-up
fi
BATCH=${BENCH_BATCH:-64}
PY=/usr/bin/python3 # Debian's interpreter: python3-torch is installed for it

# python3-torch, OpenBLAS (without it libtorch runs the reference BLAS,
# ~10x slower, which would make the comparison meaningless) and node.
scripts/deps.sh torch node >&2

mkdir -p bin
"$GO" build -o bin/peerlearn ./cmd/peerlearn
GOOS=js GOARCH=wasm "$GO" build -o bin/peerlearn.wasm ./cmd/peerlearn
WASM_EXEC="$("$GO" env GOROOT)/lib/wasm/wasm_exec_node.js"

# sps LINE: the samples/s field of a result line.
sps() { sed -n 's/.* sps=\([0-9.]*\).*/\1/p' <<<"$1" | tail -1; }
gosps() { sed -n 's/.* go_sps=\([0-9.]*\).*/\1/p' <<<"$1" | tail -1; }

# keep KEY VALUE: best[KEY] = max(best[KEY], VALUE).
keep() {
	if [ -z "${best[$1]:-}" ] || awk -v a="$2" -v b="${best[$1]}" 'BEGIN { exit !(a > b) }'; then
		best[$1]=$2
	fi
}

# run CONFIG ARCH: one measurement, printing its result line.
run() {
	local common=(bench train -arch "$2" -batch "$BATCH" -seconds "$SECS" -warmup "$WARMUP")
	case $1 in
	native1) bin/peerlearn "${common[@]}" -threads 1 ;;
	nativeN) bin/peerlearn "${common[@]}" -threads 0 ;;
	purego) bin/peerlearn "${common[@]}" -threads 1 -accel=false ;;
	wasm) node "$WASM_EXEC" bin/peerlearn.wasm "${common[@]}" -vs-go ;;
	torch) "$PY" scripts/bench_torch.py --arch "$2" --threads 1 --batch "$BATCH" --seconds "$SECS" --warmup "$WARMUP" ;;
	esac
}

configs=(native1 nativeN purego wasm torch)
# wasm's line carries two rates: sps (SIMD128) and go_sps (pure Go), kept
# as wasm and wasmgo.
shown=(native1 nativeN purego wasm wasmgo torch)
declare -A label=(
	[native1]="go native, 1 thread"
	[nativeN]="go native, $(nproc) threads"
	[purego]="go native pure-Go, 1 thread"
	[wasm]="go wasm+simd128 (node), 1 thr"
	[wasmgo]="go wasm pure Go (node), 1 thr"
	[torch]="torch $("$PY" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo '?'), 1 thread"
)
declare -A best=()
errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT
for arch in mlp small-cnn; do
	for ((r = 0; r < REPEAT; r++)); do
		for c in "${configs[@]}"; do
			line=$(run "$c" "$arch" 2>"$errlog") || { cat "$errlog" >&2; echo "bench-train: $c $arch failed" >&2; exit 1; }
			echo "  $line" >&2
			v=$(sps "$line")
			[ -n "$v" ] || { echo "bench-train: no sps in: $line" >&2; exit 1; }
			keep "$arch/$c" "$v"
			if [ "$c" = wasm ]; then
				g=$(gosps "$line")
				[ -n "$g" ] || { echo "bench-train: no go_sps in: $line" >&2; exit 1; }
				keep "$arch/wasmgo" "$g"
			fi
		done
	done
done

# Three significant digits: a positive ratio never prints as 0.00.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3g", (b > 0 ? a / b : 0) }'; }

echo
printf '%-10s %-30s %12s %9s\n' arch configuration samples/s "vs torch"
for arch in mlp small-cnn; do
	for c in "${shown[@]}"; do
		printf '%-10s %-30s %12.1f %9s\n' "$arch" "${label[$c]}" "${best[$arch/$c]}" \
			"$(ratio "${best[$arch/$c]}" "${best[$arch/torch]}")"
	done
done
echo "(best of $REPEAT runs of ${SECS}s each, batch $BATCH, $(nproc) cores)"
echo
echo "bench-train mlp_go_vs_torch=$(ratio "${best[mlp/native1]}" "${best[mlp/torch]}")" \
	"cnn_go_vs_torch=$(ratio "${best[small-cnn/native1]}" "${best[small-cnn/torch]}")" \
	"mlp_wasm_vs_go=$(ratio "${best[mlp/wasmgo]}" "${best[mlp/native1]}")" \
	"mlp_simd_ratio=$(ratio "${best[mlp/wasm]}" "${best[mlp/wasmgo]}")" \
	"cnn_simd_ratio=$(ratio "${best[small-cnn/wasm]}" "${best[small-cnn/wasmgo]}")" \
	"mlp_simd_vs_go=$(ratio "${best[mlp/wasm]}" "${best[mlp/native1]}")" \
	"cnn_simd_vs_go=$(ratio "${best[small-cnn/wasm]}" "${best[small-cnn/native1]}")"
