#!/usr/bin/env bash
# Reads bench live's per-method lines ("live method=M peers=N acc_real=A
# acc_sim=B ...", others ignored) and prints the summary
#
#   bench-live methods=K peers=N agree_ok=0|1
#
# agree_ok=1 when every method's |A - B| is at most 0.03 (compared in
# ten-thousandths, the lines' precision, so 0.9030 against 0.9000 agrees).
# With -assert it then fails (exit 1) when agree_ok=0, naming on stderr
# each method that disagrees, and when no line came at all.
set -euo pipefail

assert=0
case ${1:-} in
-assert) assert=1 ;;
"") ;;
*) echo "usage: live-agree.sh [-assert] <lines" >&2; exit 2 ;;
esac

awk -v assert="$assert" '
/^live / {
	n++
	delete v
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	d = int(v["acc_real"] * 10000 + 0.5) - int(v["acc_sim"] * 10000 + 0.5)
	if (d < 0) d = -d
	if (d > 300) {
		bad++
		why = why sprintf("bench-live: %s: real peers %s, simulator %s: %.2f points apart (at most 3)\n", v["method"], v["acc_real"], v["acc_sim"], d / 100)
	}
	p = v["peers"]
}
END {
	printf "bench-live methods=%d peers=%d agree_ok=%d\n", n, p, (n > 0 && !bad)
	if (assert && (n == 0 || bad)) {
		printf "%s", (n == 0 ? "bench-live: no method line\n" : why) > "/dev/stderr"
		exit 1
	}
}'
