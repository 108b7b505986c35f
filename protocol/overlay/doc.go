/*
Package overlay is the FedLay overlay (NDMP, its Neighbor Discovery and
Maintenance Protocols) as a pure state machine: L virtual rings, greedy
routing, join, leave, heartbeat and repair. FedLay is the overlay of
"Towards Practical Overlay Networks for Decentralized Federated Learning"
(Hua, Pang, Zhang, Liu, Shi, Wang, Liu, Qian); section numbers below are
that paper's.

Every node has one coordinate per ring, or space (Coordinate: a hash of
its ID and the space's index), and keeps in every space the nearest node
on each side, its predecessor and successor.

Under admitted placement (Config.Admission; records.go) the coordinate
is instead a hash of the ID, a salt from the signalling server's
admission token and the space's index, so that nobody can choose where a
key sits before the server admits it, and every ID a message carries
comes with its token (its peer record), checked before the ID can enter
a neighbour table. The simulators run without it (coordinates as above);
the peer runtime runs with it.

# Driving a node

A Node is a deterministic state machine in the style of etcd-io/raft:

	n, _ := overlay.NewNode(id, cfg)     // cfg.Rand: a seeded *rand.Rand
	n.Join(member)                       // or nothing, to found an overlay
	for {
		select {                         // (in a driver; overlaynet.Cluster does this)
		case <-ticker:   n.Tick()
		case b := <-in:  overlay.Receive(n, b)   // Unmarshal + Step
		}
		rd, _ := overlay.Flush(n, transport)     // Ready: send Messages, Advance
		// rd.Added / rd.Removed: open or close connections; rd.Delivered: Route payloads
	}

It has no clock, timer, goroutine, socket or global randomness, and it
knows only what messages told it. Nodes are addressed by ID; a
Transport maps an ID to a connection.

# Protocols (paper Sec. III-B) as implemented

Join. The joiner sends Join to any member, which starts a
Neighbor_discovery (MsgDiscover) for it in every space, greedy-routed to
the node closest to the joiner's coordinate. That node links the joiner
and answers DiscoverReply [pred, succ]; the joiner adopts both and sends
a Link to the one that did not answer. The answering node excuses the
displaced neighbour's stale claims for a moment (excuse.go) instead of
racing the joiner's Link with a Hint. A node that must answer but does
not know its own adjacent nodes in that space (it is joining too)
postpones the discovery and resumes routing it when it does (pending.go).

Leave. The leaver sends each neighbour its pred and succ in every space;
each neighbour replaces the leaver by the leaver's neighbour on the far
side.

Heartbeats and claims. Every T ticks a node sends each neighbour a
Heartbeat whose Roles say which of the sender's slots the receiver holds
("you are my successor in space 2"). The receiver adopts the sender into
the matching slot if it is closer than the holder; if the receiver knows
a node in between, it answers with a Hint naming it. This is Chord's
stabilize/notify, piggybacked on the paper's heartbeats: a wrong link
costs a Hint, a right one nothing.

Failure and Neighbor_repair. A neighbour silent past its failure
timeout is failed: it is forgotten, tombstoned (so hearsay does not
bring it back), remembered for merging (below), and for each slot it held a Neighbor_repair is routed in the opposite
direction (both directional rules of Sec. III-B-3). The repair seeks "the
first node clockwise after me" (or counterclockwise): the paper's target
x_u of the failed node gives the same answer when only u failed, and the
node's own coordinate also works when several adjacent nodes failed at
once. Every hop strictly shortens the arc (Theorem 2), so it cannot loop.
Where it stops, that node links the origin and sends RepairReply.

Periodic repair. As in the paper, every RepairTicks each node sends
Neighbor_repair for itself in both directions in every space; in a
correct overlay each costs one message (the first hop stops at the
existing neighbour, which knows and stays silent). Our robust variant
adds churn repair: after a failure in a space, while a slot is empty, and
after a Hint or a guessed DiscoverReply showed the node wrong, the node
repeats the two-way repair of that space every ChurnRepairTicks for
ChurnWindowTicks. Concurrent failures leave rings with gaps that a
single repair round can miss (a repair stops early where the ring is
still broken), and hints alone walk one node per round.

Failure detection. The paper's timeout is a fixed 3T. Ours adapts to
the path (detector.go, phi accrual as in Cassandra): each neighbour's
heartbeat intervals, shrunk towards those of all neighbours, give a mean
mu and deviation sigma, and the neighbour is failed after mu +
PhiThreshold*ln(10)*sigma ticks of silence (an exponential tail model),
never before FailureTicks (3T) and always by MaxFailureTicks. On a
steady path (loopback, LAN) sigma is under a tick and the timeout is
exactly 3T, as before. Under a heavy latency tail (links in order, so a
slow heartbeat holds up the next) a fixed 1.5 s kept declaring live
neighbours dead: at 350 ms mean exponential latency a 400-node overlay
was never correct (it did not even finish building); the adaptive
timeout there settles at about 4.5 s and the overlay stays correct. A normal model of the intervals (Akka's)
underestimates such a tail; the exponential one does not. A neighbour
failed for a stall (a busy browser tab, a process stopped a few
seconds), not a death, speaks again within its tombstone's 10 s; its
intervals went with the failure, so the same stall would fail it again
and again, each time repaired around and its links closed. So a node
remembers such a neighbour for StallMemoryTicks (5 min) and does not
fail it before the silence it came back after and 3T more (stall.go; at most
MaxFailureTicks): a stalling peer's real death is noticed that much
later.

Merging after a partition (merge.go). A partition longer than the
failure timeout makes each side declare the other failed and repair
into an overlay of its own; no table then names a node across, so no
protocol message ever crosses again. The failed neighbours are the
bridge: each node remembers those it saw fail (at most 2L, for
RememberTicks, an hour) and about every MergeTicks (10 s, jittered
0.5x-1.5x) sends one that is not its neighbour now a Join for itself in
every space. We chose this over a separate "merge lookup" message or a
random peer sample because it reuses the join path, which already copes
with many concurrent joins, and because the failed neighbours are
exactly the nodes across the cut: no extra sampling traffic is needed
to keep such a set. A probe to a dead node costs one message; one to a
node of the same overlay stops next to the prober, where the node
already holds it, and nothing comes back (a few hops). Across a healed
cut it finds the prober's place in the other overlay; that node links
the prober and answers, the prober adopts what is closer, and the
claims, Hints and periodic repairs (which now route over the first
cross links) splice the rings, as after concurrent joins. Since every
node with a neighbour across the cut probes, the overlays are stitched
at many places at once: 400 nodes cut in halves for 30 s or 5 min are
one correct overlay again about 7 s after the heal. A remembered node
is dropped when it is a neighbour again, so after the merge almost all
probing stops; the steady cost is in docs/RESULTS.md.

Routing. Greedy routing forwards to the neighbour, from any space,
closest to the target; it stops where no neighbour is closer (the
paper's rule; Theorem 1). Neighbours silent for SuspectTicks are used
only if no other makes progress. Lookahead (on by default) lets a hop go
to a neighbour whose own neighbours (listed in its heartbeats) include a
closer node; it never changes where routing stops, and each hop either
lowers the carried Best score or moves strictly closer, so routes do not
loop. Plain greedy routing on these graphs takes about sqrt(n)/2 hops
(6.7 at 400 nodes, 32 at 10,000, L = 5); lookahead halves that (3.4, 12).

Contacts. If failures take all of a node's neighbours at once it knows
no member; it joins again through a contact (its bootstrap member,
neighbours it dropped for closer ones, its neighbours' neighbours).

# What a message costs

Stats.Sent counts messages by type. ConstructionTypes are everything
but heartbeats and Route traffic. The paper's "messages per node to build
the overlay" corresponds to the join path: Join, Discover, DiscoverReply,
Link, Hint. Periodic repair costs 2L messages per RepairTicks per node
in a correct overlay, heartbeats up to 2L per T.

# Limits

Overlays split by a partition merge only if some node remembers a node
across the cut that is still alive when it heals: after a cut longer
than RememberTicks, or one across which every remembered node has since
died or left, they stay apart (a node can Join again to merge). A cut
that splits one side into pieces that share no neighbour leaves those
pieces apart until the heal, then all merge. Failure detection trades
speed for false alarms: at 1 s mean exponential latency the timeout
is about 9 s and live neighbours are still occasionally declared dead
(and re-adopted at their next heartbeat). A single node cut off from everyone rejoins through a contact;
over WebRTC that needs signalling, so netpeer has such a peer register
with the signalling server again and join through fresh contacts
(Config.RebootstrapAfter). With L = 1 the overlay is a single ring and two concurrent
failures split it the same way; use L >= 2. A joiner whose bootstrap
member is dead retries through its other contacts (AddContacts; netpeer
adds a welcome's), and forever if none answers. Nodes are trusted
(the paper's assumption): no message is authenticated beyond the
transport's From.
*/
package overlay
