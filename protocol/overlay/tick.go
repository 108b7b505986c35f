package overlay

import "github.com/peerlearn/peerlearn/types/ident"

// Tick advances the node's time by one tick: heartbeats every T, failure
// detection after a silence that adapts to the path (detector.go) (followed by Neighbor_repair in
// the opposite direction of the failed neighbour), the periodic two-way
// repair, churn repair after failures and while a slot is empty, Join
// retries, and tombstone expiry.
func (n *Node) Tick() {
	if n.state == stateLeft {
		return
	}
	n.now++
	n.expireTombstones()
	n.expireStalls()

	for k := 0; k < len(n.peers); {
		if p := n.peers[k]; n.now-p.lastHeard >= n.failAfter(p) {
			n.fail(p) // removes p from n.peers
			continue
		}
		k++
	}

	if (n.now+n.hbPhase)%int64(n.cfg.HeartbeatTicks) == 0 {
		var list []ident.Peer // shared by all heartbeats of this round; never mutated
		if n.cfg.Lookahead {
			list = make([]ident.Peer, len(n.peers))
			for k, p := range n.peers {
				list[k] = p.id
			}
		}
		for _, p := range n.peers {
			n.send(Message{Type: MsgHeartbeat, To: p.id, Roles: p.roles, Peers: list})
			p.link = false // the heartbeat tells it
		}
	}

	n.answerPending()
	n.rejoinIfCut()
	n.probeForMerge()

	if n.state == stateJoining {
		n.checkJoined()
		if n.state == stateJoining && n.now-n.lastJoin >= int64(n.cfg.RetryTicks) {
			if len(n.peers) > 0 {
				n.sendJoin(n.peers[0].id)
			} else if c, ok := n.nextContact(); ok {
				n.sendJoin(c)
			}
		}
		return
	}

	periodic := n.cfg.RepairTicks > 0 && (n.now+n.rpPhase)%int64(n.cfg.RepairTicks) == 0
	churn := (n.now+n.rpPhase)%int64(n.cfg.ChurnRepairTicks) == 0
	for i := range n.cfg.Spaces {
		if periodic || churn && (n.hot[i] > n.now || n.slots[i][Pred] == nil || n.slots[i][Succ] == nil) {
			n.startRepair(i, Succ)
			n.startRepair(i, Pred)
		}
	}
}

// fail handles a neighbour silent past its failure timeout: forget it (with a
// soft tombstone) and send Neighbor_repair for every slot it held.
func (n *Node) fail(p *peer) {
	roles := p.roles
	n.bury(p.id, false, p.lastHeard)
	n.forgetContact(p.id)
	n.remember(p.id)
	n.dropPeer(p)
	n.cut = len(n.peers) == 0
	for i := range n.cfg.Spaces {
		for _, s := range [2]Side{Pred, Succ} {
			if roles&RoleBit(i, s) != 0 {
				n.startRepair(i, s)
				n.hot[i] = n.now + int64(n.cfg.ChurnWindowTicks)
			}
		}
	}
}

// checkJoined ends the joining state once every space has been
// discovered, by a DiscoverReply or by both of its slots being filled
// otherwise (a reply may have been lost while others linked to us).
func (n *Node) checkJoined() {
	for i := range n.cfg.Spaces {
		if n.slots[i][Pred] != nil && n.slots[i][Succ] != nil {
			n.discovered |= 1 << uint(i)
		}
	}
	if n.discovered == n.allSpaces() {
		n.state = stateMember
	}
}
