package overlay

import "github.com/peerlearn/peerlearn/types/ident"

// Contacts: a few live members this node knows besides its neighbours,
// for the one situation the repair protocols cannot handle: every
// neighbour has failed at once (with degree 2L that takes 2L concurrent
// failures; likely only in small overlays). The node then knows no one in
// the overlay, so it joins it again through a contact, one per retry.
//
// Contacts are the member it joined through, neighbours it dropped
// because it found closer ones (still alive, as far as it knows), and
// the neighbours' own neighbours as heartbeats list them (Lookahead). At
// most 2L are kept, the newest; a contact that fails or leaves is
// forgotten.

// AddContacts adds members to join through if the first one does not
// answer (a joiner's retries rotate through its contacts) or if the node
// is later cut off: a signalling server's welcome lists several. The
// node's own ID, the zero ID and current neighbours are ignored.
func (n *Node) AddContacts(ids ...ident.Peer) {
	for _, id := range ids {
		n.addContact(id)
	}
}

func (n *Node) addContact(id ident.Peer) {
	if id == n.id || id == (ident.Peer{}) || n.find(id) != nil {
		return
	}
	n.forgetContact(id)
	if len(n.contacts) >= 2*n.cfg.Spaces {
		n.contacts = n.contacts[1:]
	}
	n.contacts = append(n.contacts, id)
}

func (n *Node) forgetContact(id ident.Peer) {
	for k, c := range n.contacts {
		if c == id {
			n.contacts = append(n.contacts[:k], n.contacts[k+1:]...)
			return
		}
	}
}

// nextContact returns a contact to join through, rotating, or false if
// there is none.
func (n *Node) nextContact() (ident.Peer, bool) {
	for len(n.contacts) > 0 {
		c := n.contacts[len(n.contacts)-1]
		n.contacts = n.contacts[:len(n.contacts)-1]
		if !n.tombstoned(c) {
			n.contacts = append([]ident.Peer{c}, n.contacts...) // to the back of the queue
			return c, true
		}
	}
	return ident.Peer{}, false
}

// rejoinIfCut starts a new join when failures took the node's last
// neighbour. (When the last one leaves gracefully the node has been told
// everything the leaver knew: it is alone, or will be linked to.)
func (n *Node) rejoinIfCut() {
	if n.state != stateMember || len(n.peers) > 0 || !n.cut {
		return
	}
	n.cut = false
	if c, ok := n.nextContact(); ok {
		_ = n.Join(c) // cannot fail: c is neither our ID nor zero
	}
}
