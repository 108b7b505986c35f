package modelcodec

// Links keeps the codec ends of many directed links, keyed by K (a peer
// index in a simulator): the sender side of from→to and the receiver side
// of from→to, made on first use. A simulator holds every link in one
// place; a real peer, one end of each of its own (netpeer). Not safe for
// concurrent use.
type Links[K comparable] struct {
	cfg  Config
	send map[[2]K]*Sender
	recv map[[2]K]*Receiver
}

// NewLinks returns the links of a codec.
func NewLinks[K comparable](cfg Config) (*Links[K], error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return nil, err
	}
	return &Links[K]{cfg: cfg, send: map[[2]K]*Sender{}, recv: map[[2]K]*Receiver{}}, nil
}

// Sender returns from's sending end of the link to to.
func (l *Links[K]) Sender(from, to K) *Sender {
	k := [2]K{from, to}
	s := l.send[k]
	if s == nil {
		s = &Sender{cfg: l.cfg}
		l.send[k] = s
	}
	return s
}

// Receiver returns to's receiving end of the link from from.
func (l *Links[K]) Receiver(from, to K) *Receiver {
	k := [2]K{from, to}
	r := l.recv[k]
	if r == nil {
		r = &Receiver{}
		l.recv[k] = r
	}
	return r
}
