// Package admission makes identities and overlay placement cost something
// an attacker cannot skip: the signalling server's admission token.
//
// A peer's ID is the SHA-256 of its ed25519 public key (types/ident), so
// keys are free and, before this package, so were ring positions:
// Coordinate(id, i) = H(id, i) let anyone grind keys offline until some
// landed next to a chosen victim in every ring (an eclipse). Now:
//
//   - Token. The server admits a key once per epoch and per task: it
//     signs a Token naming the task, the public key, the epoch, an expiry,
//     the key's proof of work and a Salt. Tokens are rate-limited per IP
//     and per /24 (/48 for IPv6) by the server (signal/server), so every
//     admitted key costs an admission.
//   - Salt. Salt = HMAC(server secret, task, key, epoch): randomness the
//     peer cannot know before the server admits the key, and the same on
//     every admission of that key in that epoch (re-asking does not
//     re-roll it; a new epoch or a new key does, each at the price of an
//     admission).
//   - Placement. Ring coordinates are Place(id, Salt, i) = H(id, Salt, i):
//     a key ground in advance says nothing about where it will sit, so
//     choosing a position takes one admission per try (sim eclipse
//     measures what that costs).
//   - Proof of work. A task may ask for PoWBits: SHA-256(domain, task,
//     key, nonce) must start with that many zero bits. The server checks
//     it before admitting; the nonce is in the token, so every peer checks
//     it again against the task's difficulty (a lax or misconfigured
//     server cannot hand out cheap keys the peers accept).
//   - Records. A Token is also the peer record other peers check before
//     they put an ID into their routing tables: it carries the public key
//     (the ID is its hash), the epoch and the server's signature. Verify is
//     a pure function of the token, the server's public key, the task, the
//     difficulty and the caller's notion of now (a time or an epoch); it
//     reads no clock.
//
// Joins that never touch the server (a peer re-joining through the overlay
// after its server went away) stay possible: a token is valid for the epoch
// it was issued in and the next, and the server's public key is part of the
// task's configuration, so peers verify tokens offline. A peer re-joining
// through the overlay presents the token it already has; a peer with no
// token, or an expired one, must be admitted by a server first. A peer
// that runs longer has its token renewed (Issuer.Renew): a token of the
// current epoch with the same salt, so the same place.
package admission
