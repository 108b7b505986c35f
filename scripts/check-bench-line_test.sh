#!/usr/bin/env bash
# Tests scripts/check-bench-line.sh on lines it must accept and on lines it
# must reject, so that `make bench-smoke` relies on a check that can fail.
set -euo pipefail
cd "$(dirname "$0")"

failed=0
# expect WANT NAME KEYS OUTPUT: run the check on OUTPUT, want ok or reject.
expect() {
	local want=$1 name=$2 keys=$3 out=$4 got=ok
	# shellcheck disable=SC2086 # KEYS is a word list
	printf '%s\n' "$out" | ./check-bench-line.sh "$name" $keys >/dev/null 2>&1 || got=reject
	if [ "$got" != "$want" ]; then
		echo "check-bench-line_test: want $want, got $got: $name [$keys] <<< $out" >&2
		failed=1
	fi
}

expect ok bench-x "a b" 'bench-x a=1.5 b=2'
expect ok bench-x "a" $'noise before\nbench-x a=0.25 b=3e-2'
expect ok bench-x "" 'bench-x ratio=12.3 tcp_mbs=640.0'
expect ok netlab "failed" 'netlab pairs=10 failed=0 relay_mbs=12.2'
expect ok bench-x "" 'bench-x transfers_failed=3'
expect reject netlab "" 'netlab failed=0.5'
expect reject netlab "" 'netlab failed=-1'
expect reject netlab "" 'netlab pairs=0 failed=0'
expect ok bench-abuse "turn_drained fake_contacts" 'bench-abuse proxy_joins_ok=1 turn_drained=0 fake_contacts=0'
expect ok bench-abuse "" 'bench-abuse turn_drained=1 fake_contacts=14'
expect reject bench-abuse "" 'bench-abuse fake_contacts=1.5'
expect reject bench-abuse "" 'bench-abuse fake_contacts_x=0'
expect ok live "method acc_real" 'live method=pens peers=6 acc_real=0.91 acc_sim=0.9 precision=1.000'
expect reject live "" 'live method=PENS acc_real=0.91'
expect reject live "" 'live method=1.5 acc_real=0.91'
expect reject bench-x "a" $'bench-x a=1.5\nnoise after'
expect reject bench-x "a" 'bench-y a=1.5'
expect reject bench-x "" 'bench-x'
expect reject bench-x "" ''
expect reject bench-x "a b" 'bench-x a=1.5'
expect reject bench-x "" 'bench-x a=NaN'
expect reject bench-x "" 'bench-x a=nan'
expect reject bench-x "" 'bench-x a=+Inf'
expect reject bench-x "" 'bench-x a=inf'
expect reject bench-x "" 'bench-x a=1e999'
expect reject bench-x "" 'bench-x a='
expect reject bench-x "" 'bench-x a=0'
expect reject bench-x "" 'bench-x a=0.00'
expect reject bench-x "" 'bench-x a=-1.5'
expect reject bench-x "" 'bench-x a=1.5x'
expect reject bench-x "" 'bench-x a=1,5'
expect reject bench-x "" 'bench-x a=1.5 a=2'
expect reject bench-x "" 'bench-x a=1.5 b'
expect reject bench-x "" 'bench-x arch=mlp'
expect ok bench-x "a_ok" 'bench-x a_ok=0 b=2'
expect ok bench-x "a_ok" 'bench-x a_ok=1'
expect reject bench-x "" 'bench-x a_ok=2'
expect reject bench-x "" 'bench-x a_ok=0.5'
expect reject bench-x "" 'bench-x a_ok='
expect reject bench-x "" 'bench-x a_okay=0'

[ $failed = 0 ] && echo "check-bench-line_test: ok"
exit $failed
