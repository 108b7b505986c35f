package server

import (
	"crypto/hmac"
	"strconv"
	"strings"

	"github.com/pion/stun/v4"
	"github.com/pion/turn/v5"
)

// auth is the embedded TURN server's AuthHandler for TURN REST
// credentials ("<expiry>:<user>", base64(HMAC-SHA1(secret, username))).
// A new allocation needs unexpired credentials; once tied to sessions
// (TieToSessions), every request also needs the user's signalling
// session, and requests on an allocation (refresh, permissions,
// channels) keep working past the expiry while the session lives, so a
// relayed connection outlives its minutes-long credentials but not its
// peer's session.
func (t *TURN) auth(ra *turn.RequestAttributes) (string, []byte, bool) {
	expiry, user, ok := strings.Cut(ra.Username, ":")
	exp, err := strconv.ParseInt(expiry, 10, 64)
	if !ok || err != nil || user == "" {
		t.authRefused.Add(1)
		return "", nil, false
	}
	wantUser, password := TURNCredentials(t.secret, user, unixTime(exp))
	if !hmac.Equal([]byte(wantUser), []byte(ra.Username)) { // canonical form only ("0123:x" is not "123:x")
		t.authRefused.Add(1)
		return "", nil, false
	}
	expired := exp < turnNow().Unix()
	live := t.live.Load()
	switch {
	case live != nil && !(*live)(user):
		t.authRefused.Add(1)
		return "", nil, false
	case expired && (ra.Method == stun.MethodAllocate || live == nil):
		t.authRefused.Add(1)
		return "", nil, false
	}
	// The key is checked against the request's MESSAGE-INTEGRITY by pion:
	// a wrong password fails there.
	return user, turn.GenerateAuthKey(ra.Username, ra.Realm, password), true
}
