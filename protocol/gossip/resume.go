package gossip

import "fmt"

// Resuming a node after its peer restarted (a browser tab reloaded): the
// runtime kept the node's last trained model and where it was, and
// builds a fresh node from that model; these put the fresh node where
// the old one stood. Only a node that has done nothing yet can be
// resumed: its state would otherwise mix two lives.

// RestoreAge gives the published model (Init's) the age it had when it
// was kept: without it a resumed model counts as new (age 0) and the
// first merge discards it for the neighbour's (Merge weighs by age).
func (n *Node) RestoreAge(age uint64) error {
	switch {
	case n.params == nil:
		return fmt.Errorf("%w: RestoreAge before Init", ErrConfig)
	case n.busy || n.age != 0 || n.now != 0 || n.stats != (Stats{}):
		return fmt.Errorf("%w: RestoreAge on a node that has started", ErrConfig)
	case age > MaxAge:
		return fmt.Errorf("%w: age %d above %d", ErrConfig, age, uint64(MaxAge))
	}
	n.age = age
	return nil
}

// Resume puts a node that has not started (NewRoundNode, Ready not yet
// called) at round: about to train it from the model NewRoundNode was
// given, the last trained model kept through the restart (its mix with
// the neighbours' models of the round before is lost with the restart:
// they timed out on this node meanwhile). At MaxRounds the node is done,
// that model final; a later round cannot have been reached and is
// refused, as are rounds above MaxAge.
func (n *RoundNode) Resume(round uint64) error {
	switch {
	case !n.training || n.train == nil || n.round != 0 || n.params != nil || n.done || n.now != 0 || n.stats != (RoundStats{}):
		return fmt.Errorf("%w: Resume on a node that has started", ErrConfig)
	case round > MaxAge || (n.cfg.MaxRounds > 0 && round > uint64(n.cfg.MaxRounds)):
		return fmt.Errorf("%w: resume at round %d of MaxRounds %d", ErrConfig, round, n.cfg.MaxRounds)
	}
	n.round = round
	if n.cfg.MaxRounds > 0 && round == uint64(n.cfg.MaxRounds) {
		n.params, n.training, n.train, n.done = n.train, false, nil, true
	}
	return nil
}
