#!/usr/bin/env bash
# The owner's path on loopback (`make bench-owner`, cmd/peerlearn
# TestBenchOwner): for each example task, a declared model on its own data
# (the letters CSV; Fashion-MNIST written as PNG folders), its manifest, a
# spec, bin/signalserver hosting it, 4 real `peerlearn peer` processes,
# `peerlearn collect` as an observer, `peerlearn task export` of the
# collector's best model to ONNX and safetensors, checked in
# onnxruntime-node and torch on 1,000 test inputs, and the same model
# trained centrally. Ends with
#
#   bench-owner tasks=2 tabular_acc=T tabular_central=TC image_acc=I image_central=IC onnx_maxdiff=D torch_agree=A collect_best_acc=C
#
# BENCH_SMOKE=1 (`make bench-smoke`): 3 rounds on 800 train and 200 test
# images (the letters whole), through the same code.
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
scripts/deps.sh onnx torch >&2
mkdir -p bin
"$GO" build -o bin/peerlearn ./cmd/peerlearn >&2
"$GO" build -o bin/signalserver ./cmd/signalserver >&2
export PEERLEARN_DATA=${PEERLEARN_DATA:-$PWD/.data}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! BENCH_OWNER_BIN=$PWD/bin "$GO" test -count=1 -timeout 60m -run '^TestBenchOwner$' -v ./cmd/peerlearn/ >"$log" 2>&1; then
	tail -n 80 "$log" >&2
	echo "bench-owner: failed" >&2
	exit 1
fi
grep -E '^\s+bench_owner_test.go' "$log" >&2 || true
grep '^bench-owner ' "$log"
