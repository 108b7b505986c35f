package server

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"strconv"
	"time"
)

// TURNCredentials returns TURN REST credentials for user valid until
// expiry: username "<expiry unix>:<user>", password
// base64(HMAC-SHA1(secret, username)). coturn (use-auth-secret) and
// pion/turn's LongTermTURNRESTAuthHandler accept them.
func TURNCredentials(secret, user string, expiry time.Time) (username, password string) {
	username = strconv.FormatInt(expiry.Unix(), 10) + ":" + user
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(username))
	return username, base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func unixTime(s int64) time.Time { return time.Unix(s, 0) }
