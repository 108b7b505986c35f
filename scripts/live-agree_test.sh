#!/usr/bin/env bash
# Tests scripts/live-agree.sh: the summary it prints, and that -assert
# fails exactly when a method's real and simulated accuracies are more
# than 3 points apart (or no method line came), so that the agreement
# `make bench-smoke` asserts is a check that can fail.
set -euo pipefail
cd "$(dirname "$0")"

failed=0
# expect WANT SUMMARY INPUT: run live-agree.sh -assert on INPUT; want ok
# or fail, and the summary line SUMMARY on stdout.
expect() {
	local want=$1 summary=$2 in=$3 got=ok out
	out=$(printf '%s\n' "$in" | ./live-agree.sh -assert 2>/dev/null) || got=fail
	if [ "$got" != "$want" ] || [ "$out" != "$summary" ]; then
		echo "live-agree_test: want $want and '$summary', got $got and '$out' <<< $in" >&2
		failed=1
	fi
}

g=$'live method=gossip peers=4 acc_real=0.9030 acc_sim=0.8977'
d=$'live method=dpsgd peers=4 acc_real=0.9315 acc_sim=0.9350'
expect ok 'bench-live methods=2 peers=4 agree_ok=1' "$g"$'\n'"$d"
expect ok 'bench-live methods=1 peers=4 agree_ok=1' $'noise\nlive method=pens peers=4 acc_real=0.9030 acc_sim=0.9330 precision=0.5'
# 3 points exactly agree, in either direction; 3.01 do not.
expect ok 'bench-live methods=2 peers=4 agree_ok=1' "$g"$'\nlive method=plexus peers=4 acc_real=0.6590 acc_sim=0.6890'
expect ok 'bench-live methods=1 peers=4 agree_ok=1' 'live method=plexus peers=4 acc_real=0.9030 acc_sim=0.8730'
expect fail 'bench-live methods=2 peers=4 agree_ok=0' "$g"$'\nlive method=plexus peers=4 acc_real=0.6590 acc_sim=0.6891'
expect fail 'bench-live methods=2 peers=6 agree_ok=0' $'live method=gossip peers=6 acc_real=0.9500 acc_sim=0.9100\n'"${d/peers=4/peers=6}"
expect fail 'bench-live methods=0 peers=0 agree_ok=0' 'noise only'
# A disagreement in the first line is not forgotten by a later agreeing one.
expect fail 'bench-live methods=2 peers=4 agree_ok=0' $'live method=gossip peers=4 acc_real=0.8000 acc_sim=0.9000\n'"$d"

# Without -assert: the summary, and success either way.
out=$(printf '%s\n' 'live method=gossip peers=4 acc_real=0.5 acc_sim=0.9' | ./live-agree.sh) ||
	{ echo "live-agree_test: without -assert a disagreement failed" >&2; failed=1; }
[ "$out" = 'bench-live methods=1 peers=4 agree_ok=0' ] || { echo "live-agree_test: got '$out'" >&2; failed=1; }
# The message names the method that disagreed.
msg=$(printf '%s\n' "$g" 'live method=plexus peers=4 acc_real=0.6590 acc_sim=0.6990' | ./live-agree.sh -assert 2>&1 >/dev/null) || true
[[ $msg == *"plexus: real peers 0.6590, simulator 0.6990: 4.00 points apart"* && $msg != *gossip* ]] ||
	{ echo "live-agree_test: message '$msg'" >&2; failed=1; }

exit $failed
