#!/usr/bin/env bash
# Abuse: a hostile peer against a live learning peer and a live
# signalling server on 127.0.0.1 (`peerlearn bench abuse`): manifests
# that claim huge sizes or tiny chunks, transfers held one chunk short, a
# flood of routed offers that never connect, badly signed frames, and
# fake registrations and silent WebSocket upgrades from 127.0.0.2 held
# against the server while an honest newcomer from 127.0.0.1 registers;
# then fakes that send dead offers and claim connections while newcomers
# count the fakes they are handed, the server flood again behind nginx,
# and 63 registrations from 3 subnets trying to drain the TURN relay.
# The victim and an honest peer are
# `peerlearn peer` processes learning MNIST (needs `make data`), the
# hostile peer lives in the benchmark only. BENCH_SMOKE=1 runs fewer
# attacks and a shorter training window (the same code paths, for
# `make bench-smoke`; its numbers mean little). The last line is
# machine-readable:
#
#   bench-abuse manifest_mb=M offers=N conns_max=C server_joins_ok=J flood_peers_held=P flood_sockets_held=S rss_growth_mb=R rss_growth_honest_mb=H trained=T proxy_joins_ok=X turn_drained=D fake_contacts=F newcomer_join_s=W
#
# M: the most incoming transfer memory any one peer made the victim hold
# (MB; a peer's newer manifest supersedes its transfer in flight, so at
# most one model); C: the most connections it held during the offer
# flood; J: 1 if the newcomer could register while one address (the
# attacker's) held fake registrations and silent sockets, else 0
# (measured: on a server without per-address limits it is 0); P and S:
# the fake registrations and sockets the server let that address hold; R:
# the victim's RSS growth (MB) from its first evaluation (just before the
# attacks) to the end of the training after them, and H the honest
# peer's, unattacked, over the same window (what training alone costs;
# the collections each ran in the window are printed above the line);
# T: 1 if the victim's accuracy rose after the attacks; X: J again, with
# the server behind the nginx proxy DEPLOY.md shows (needs nginx:
# scripts/deps.sh proxy); D: 1 if 63 registrations from 3 subnets left an
# honest newcomer no TURN relay; F: the fakes (CONTACT_FAKES of them, each
# sending dead offers and claiming connections) handed to 8 newcomers, 24
# contacts in all; W: seconds from a newcomer's dial to its first open
# connection after that.
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
OFFERS=${BENCH_OFFERS:-64}
FRAMES=${BENCH_FRAMES:-5000}
FAKES=${BENCH_FAKES:-100}
SOCKETS=${BENCH_SOCKETS:-128}
CONTACT_FAKES=${BENCH_CONTACT_FAKES:-30}
TRAIN=${BENCH_TRAIN:-60s}
SETTLE=true
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	# -settle=false: the dead offers still being answered at the end are
	# not waited for (up to 17 s) and so not counted.
	OFFERS=16 FRAMES=500 SOCKETS=80 TRAIN=45s SETTLE=false
fi

# The hostile peer's raw frames (rtc.Manager.SendFrame) and the
# benchmark itself exist only with -tags hostile: their own binary, which
# also runs the victim and the honest peer (whose paths are the same as
# in bin/peerlearn: the tag adds the benchmark and that one method).
mkdir -p bin
"$GO" build -tags hostile -o bin/peerlearn-hostile ./cmd/peerlearn
out=$(timeout 400 bin/peerlearn-hostile bench abuse -offers "$OFFERS" -frames "$FRAMES" -sockets "$SOCKETS" -fakes "$FAKES" -contact-fakes "$CONTACT_FAKES" -settle="$SETTLE" -train "$TRAIN")
line=$(grep '^bench-abuse ' <<<"$out")
grep -v '^bench-abuse ' <<<"$out"
echo "$line"
