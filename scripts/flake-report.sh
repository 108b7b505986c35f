#!/usr/bin/env bash
# `make flake-report N=3 [PKGS=...]`: runs the packages (default: the
# Makefile's HEAVY_PKGS) N times, one package at a time as `make test`
# runs them, with `go test -json`, and prints one row per test: passes
# out of the runs that finished it, skips, and its median time (s). A
# package that fails without a failing test (a build error, a timeout
# panic) gets a row "(package)". Exits non-zero when any test or package
# failed in any run. The raw JSON of run i is kept in $FLAKE_DIR/run-i.json
# (default: a temporary folder, named at the end).
#
#   scripts/flake-report.sh N PKG...
set -uo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
n=${1:-3}
shift || true
[ $# -gt 0 ] || { echo "usage: $0 N PKG..." >&2; exit 2; }
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "flake-report: N=$n is not a positive count" >&2; exit 2; }
dir=${FLAKE_DIR:-$(mktemp -d)}
mkdir -p "$dir"

for i in $(seq 1 "$n"); do
	start=$SECONDS
	"$GO" test -p 1 -count=1 -timeout 30m -json "$@" >"$dir/run-$i.json" 2>"$dir/run-$i.stderr"
	echo "flake-report: run $i of $n: exit $?, $((SECONDS - start)) s" >&2
done

# One line per finished test (or package): key, action, elapsed. The
# fields of a `go test -json` event come in a fixed order, so sed picks
# them without a JSON parser.
results=$(cat "$dir"/run-*.json | grep -E '"Action":"(pass|fail|skip)"' |
	sed -nE 's/.*"Action":"([a-z]+)","Package":"([^"]*)"(,"Test":"([^"]*)")?,"Elapsed":([0-9.]+).*/\2 \4 \1 \5/p' |
	awk '{ if (NF == 3) { $4 = $3; $3 = $2; $2 = "(package)" } pkg = $1; sub(/^[^\/]+\/[^\/]+\/[^\/]+\//, "", pkg); print pkg "." $2, $3, $4 }' |
	sort -k1,1 -k3,3g)

[ -n "$results" ] || { echo "flake-report: no test results (see $dir/run-*.stderr)" >&2; exit 1; }

# Rows sorted by key then time: the median is the middle time of a key.
awk -v runs="$n" '
function flush() {
	if (key == "") return
	printf "%-64s %3d/%-3d %6s %9.1f\n", key, pass, c, (skip ? skip " skip" : ""), (c % 2 ? t[(c + 1) / 2] : (t[c / 2] + t[c / 2 + 1]) / 2)
	if (fail) failed++
}
$1 != key { flush(); key = $1; pass = fail = skip = c = 0 }
{ if ($2 == "pass") pass++; else if ($2 == "fail") fail++; else skip++; t[++c] = $3 }
END {
	flush()
	printf "flake-report runs=%d tests=%d failing=%d\n", runs, NR ? rows : 0, failed
	exit failed > 0
}
$1 != prev { rows++; prev = $1 }
BEGIN { printf "%-64s %7s %6s %9s\n", "test", "pass", "", "median_s" }
' <<<"$results"
rc=$?
echo "flake-report: raw output in $dir" >&2
exit $rc
