#!/usr/bin/env bash
# Checks that a benchmark's result line parses: the last line of stdin must
# be NAME followed by key=value fields, every value a finite positive
# decimal number (no NaN, Inf, empty or zero value: a zero samples/s or
# ratio means the measurement did not happen), no key twice, and every
# KEY given on the command line present. A key ending in _ok is a yes/no
# answer that was measured, not a rate: its value must be 0 or 1 (0 is an
# honest "no", e.g. bench-abuse's server_joins_ok when honest peers could
# not join during a socket flood). A key named failed, or ending in
# _failed, counts failures: a whole number, and 0 is the goal (bench-netlab's
# pairs that never connected); so do the keys in zero_goal below
# (bench-abuse's turn_drained, 1 if an honest newcomer was refused a relay,
# and fake_contacts, the fakes newcomers were handed). The key "method" names a method
# (bench-live's "live method=pens ...").
#
#   scripts/bench-train.sh | scripts/check-bench-line.sh bench-train mlp_go_vs_torch cnn_go_vs_torch
#
# Prints the line and exits 0 when it parses; says why and exits 1 when not.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: check-bench-line.sh NAME [KEY...] <output" >&2; exit 2; }
name=$1
shift

last=$(tail -n 1)
fail() { echo "check-bench-line: $name: $1 in last line: ${last:-<empty>}" >&2; exit 1; }

read -r -a fields <<<"$last"
[ ${#fields[@]} -ge 2 ] || fail "no key=value fields"
[ "${fields[0]}" = "$name" ] || fail "does not start with '$name'"

# Counts whose goal is 0 (besides failed and *_failed).
declare -A zero_goal=([turn_drained]=1 [fake_contacts]=1)
declare -A seen=()
number='^(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
for f in "${fields[@]:1}"; do
	[[ $f =~ ^([a-z][a-z0-9_]*)=(.*)$ ]] || fail "field '$f' is not key=value"
	key=${BASH_REMATCH[1]}
	val=${BASH_REMATCH[2]}
	[ -z "${seen[$key]:-}" ] || fail "key '$key' appears twice"
	seen[$key]=1
	if [[ $key == method ]]; then
		# bench-live's lines name the method they measure.
		[[ $val =~ ^[a-z][a-z0-9-]*$ ]] || fail "value of 'method' ('$val') is not a method name"
		continue
	fi
	if [[ $key == *_ok ]]; then
		[[ $val == 0 || $val == 1 ]] || fail "value of '$key' ('$val') is not 0 or 1"
		continue
	fi
	if [[ $key == failed || $key == *_failed || -n ${zero_goal[$key]:-} ]]; then
		[[ $val =~ ^(0|[1-9][0-9]*)$ ]] || fail "value of '$key' ('$val') is not a whole number"
		continue
	fi
	[[ $val =~ $number ]] || fail "value of '$key' ('$val') is not a finite decimal number"
	# A number that overflows or is zero: awk reads it as a double.
	awk -v v="$val" 'BEGIN { x = v + 0; exit !(x > 0 && x < 1e300) }' || fail "value of '$key' ($val) is not positive and finite"
done
for key in "$@"; do
	[ -n "${seen[$key]:-}" ] || fail "key '$key' is missing"
done
echo "$last"
