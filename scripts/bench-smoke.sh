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
# build and progress output goes to stderr, their results to stdout. Two
# run at a time (the lanes below).
set -euo pipefail

cd "$(dirname "$0")/.."
export BENCH_SMOKE=1
LIMIT=${BENCH_SMOKE_LIMIT:-600} # seconds per script, fresh-machine installs included

scripts/check-bench-line_test.sh
scripts/live-agree_test.sh

# What every script installs, installed here first, one apt at a time: the
# lanes below then find it all (two apt-gets at once fail on dpkg's lock).
scripts/deps.sh test node companion netlab proxy torch onnx >&2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
# smoke NAME KEY...: runs scripts/NAME.sh and checks that its last line is
# "NAME key=value ..." with every KEY (LINE=word: the line starts with
# that word instead). Its progress (stderr) is printed when it ends, in
# one piece, since two lanes run at once.
smoke() {
	local name=$1 t0=$SECONDS rc=0
	shift
	timeout "$LIMIT" "scripts/$name.sh" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	{
		echo "== $name (smoke)"
		cat "$tmp/$name.err"
		if [ $rc -ne 0 ]; then
			cat "$tmp/$name.out"
			echo "bench-smoke: $name failed (exit $rc)"
		fi
	} >&2
	[ $rc -eq 0 ] || return 1
	scripts/check-bench-line.sh "${LINE:-$name}" "$@" <"$tmp/$name.out" || return 1
	echo "$name=$((SECONDS - t0))s" >>"$tmp/times"
}

# Two lanes at once (a smoke run's numbers mean little, and none of them
# is a time): the browser benchmark (Chromium, its own build directory),
# and the native ones, which build bin/ one after the other. bench-netlab
# builds bin/ too, so it runs after both. Run one script at a time (CI on
# a0e82de, these 2 cores), bench-browser took 72 s and the native lane's
# scripts 93 s in all.
browser_lane() {
	smoke bench-browser go_wasm_sps go_simd_sps tfjs_wasm_sps ratio simd_ratio wasm_vs_native frame_gap_ms tab_mb resume_s keygen_wasm_per_s keygen_wasm_vs_native
}
native_lane() {
	smoke bench-go gemm_accel_vs_ref dot_accel_vs_ref axpy_accel_vs_ref nn_mlp_sps nn_small_cnn_sps robust_coord_vs_l2 round_checks_vs_default &&
		smoke bench-transfer webrtc_mbs tcp_mbs ratio &&
		smoke bench-train mlp_go_vs_torch cnn_go_vs_torch mlp_wasm_vs_go &&
		smoke bench-companion mlp_torch_vs_go cnn_torch_vs_go &&
		smoke bench-live methods peers agree_ok &&
		smoke bench-owner tasks tabular_acc tabular_central image_acc image_central onnx_maxdiff torch_agree collect_best_acc &&
		smoke bench-abuse manifest_mb offers conns_max server_joins_ok rss_growth_mb rss_growth_honest_mb trained proxy_joins_ok turn_drained fake_contacts newcomer_join_s
}
browser_lane &
browser=$!
native_lane &
native=$!
rc=0
wait $browser || rc=1
wait $native || rc=1
[ $rc -eq 0 ] || { echo "bench-smoke: failed" >&2; exit 1; }
LINE=netlab smoke bench-netlab pairs direct relay failed connect_p50_ms connect_p95_ms relay_mbs acc_mean || exit 1
times=$(tr '\n' ' ' <"$tmp/times")
echo "bench-smoke: $(wc -l <"$tmp/times") benchmarks parse (${times% }; $((SECONDS - start))s in two lanes and bench-netlab, ${SECONDS}s in all)"
