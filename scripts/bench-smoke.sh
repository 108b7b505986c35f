#!/usr/bin/env bash
# `make bench-smoke`: every benchmark script in smoke mode (BENCH_SMOKE=1:
# tiny durations and sizes through the same code paths), each checked for
# a result line that parses (scripts/check-bench-line.sh, itself tested
# first, with the keys each script promises). The numbers of a smoke run
# mean little and nothing asserts on them, but for one: bench-live fails
# when real peers and the simulator disagree by more than 3 points
# (scripts/live-agree.sh, tested first too). Otherwise what fails the run
# is a script that breaks, or a last line that is missing, malformed,
# zero or not finite. Each script installs what it needs (scripts/deps.sh); their
# build and progress output goes to stderr, their results to stdout.
set -euo pipefail

cd "$(dirname "$0")/.."
export BENCH_SMOKE=1
LIMIT=${BENCH_SMOKE_LIMIT:-600} # seconds per script, fresh-machine installs included

scripts/check-bench-line_test.sh
scripts/live-agree_test.sh

out=$(mktemp)
trap 'rm -f "$out"' EXIT
times=()
# smoke NAME KEY...: runs scripts/NAME.sh and checks that its last line is
# "NAME key=value ..." with every KEY (LINE=word: the line starts with
# that word instead).
smoke() {
	local name=$1 start=$SECONDS
	shift
	echo "== $name (smoke)"
	if ! timeout "$LIMIT" "scripts/$name.sh" >"$out"; then
		cat "$out"
		echo "bench-smoke: $name failed" >&2
		exit 1
	fi
	scripts/check-bench-line.sh "${LINE:-$name}" "$@" <"$out"
	times+=("$name=$((SECONDS - start))s")
}

smoke bench-go gemm_accel_vs_ref dot_accel_vs_ref axpy_accel_vs_ref nn_mlp_sps nn_small_cnn_sps robust_coord_vs_l2
smoke bench-transfer webrtc_mbs tcp_mbs ratio
smoke bench-train mlp_go_vs_torch cnn_go_vs_torch mlp_wasm_vs_go
smoke bench-companion mlp_torch_vs_go cnn_torch_vs_go
smoke bench-browser go_wasm_sps go_simd_sps tfjs_wasm_sps ratio simd_ratio wasm_vs_native frame_gap_ms tab_mb resume_s keygen_wasm_per_s keygen_wasm_vs_native
LINE=netlab smoke bench-netlab pairs direct relay failed connect_p50_ms connect_p95_ms relay_mbs acc_mean
smoke bench-live methods peers agree_ok
smoke bench-owner tasks tabular_acc tabular_central image_acc image_central onnx_maxdiff torch_agree collect_best_acc
smoke bench-abuse manifest_mb offers conns_max server_joins_ok rss_growth_mb rss_growth_honest_mb trained proxy_joins_ok turn_drained fake_contacts newcomer_join_s
echo "bench-smoke: ${#times[@]} benchmarks parse (${times[*]}, ${SECONDS}s in all)"
