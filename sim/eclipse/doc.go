// Package eclipse measures what an eclipse costs: how many key generations
// (and how much time) an attacker needs before it owns all 2L ring slots
// next to a chosen victim in an overlay of n peers, under the old
// placement, where a peer's ring coordinates are H(id, i) and anyone can
// compute them for a key offline, and under admitted placement
// (types/admission), where they are H(id, salt, i) with a salt the
// signalling server draws when it admits the key.
//
// Old placement: the attacker generates ed25519 keys and keeps each one
// whose coordinate in some space falls into one of the victim's 2L gaps
// (between the victim and its honest predecessor or successor there);
// it stops when every gap holds one of its keys, which then win those
// slots in FedLay's rule (closest by circular distance). The count is the
// real number of keys generated, the time is measured.
//
// Admitted placement: a key's coordinates are unknown until it is
// admitted, so without the server no number of key generations chooses a
// place (keys_after = inf). Run demonstrates it: the keys that eclipse the
// victim under the old rule are admitted, and the gaps they fill under
// the new rule are counted (chance level). Then it counts the admissions
// an attacker that grinds AFTER admission needs (one admission, with its
// proof of work, per key tried) and converts them into the server's
// per-subnet rate limit: the /24 subnets needed to finish within a token's
// lifetime (two epochs), since the keys' and the victim's places move with
// the epoch.
package eclipse
