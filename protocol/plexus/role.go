package plexus

// Started reports whether Start was called.
func (p *Peer) Started() bool { return p.started }

// Newest returns the newest round this peer accepted a train request
// for or aggregated (0 before any).
func (p *Peer) Newest() uint64 { return p.newest }

// Work returns the rounds in which this peer has member work (training,
// or waiting for the round to complete after sending its model) and
// those in which it is collecting or averaging as an aggregator, each
// ascending: what a volunteer's status shows as its role.
func (p *Peer) Work() (member, aggregator []uint64) {
	for _, k := range sortedKeys(p.parts) {
		member = append(member, k)
	}
	for _, k := range sortedKeys(p.colls) {
		if c := p.colls[k]; c.deadline > 0 || c.aggregating {
			aggregator = append(aggregator, k)
		}
	}
	return member, aggregator
}
