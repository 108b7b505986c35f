package server

import (
	"net/http"
	"net/url"
	"path"
	"strings"
)

// originAllowed reports whether a websocket request's Origin may connect:
// no Origin (a native peer), the same origin, or one of the patterns.
func originAllowed(r *http.Request, patterns []string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	host := strings.ToLower(u.Host)
	full := strings.ToLower(u.Scheme) + "://" + host
	for _, p := range patterns {
		target := host
		if strings.Contains(p, "://") {
			target = full
		}
		if ok, _ := path.Match(strings.ToLower(p), target); ok {
			return true
		}
	}
	return false
}
