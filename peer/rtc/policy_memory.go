package rtc

import "time"

// remember sets m[k] = v, first evicting the entry that expires soonest
// (by expiry) if m already holds bound entries and k is new: the
// policy's memories stay bounded whatever its peers send.
func remember[K comparable, V any](m map[K]V, k K, v V, bound int, expiry func(V) time.Time) {
	if _, ok := m[k]; !ok && len(m) >= bound {
		var victim K
		var soonest time.Time
		first := true
		for key, val := range m {
			if e := expiry(val); first || e.Before(soonest) {
				victim, soonest, first = key, e, false
			}
		}
		delete(m, victim)
	}
	m[k] = v
}

// forget deletes the entries of m that expired before now.
func forget[K comparable, V any](m map[K]V, now time.Time, expiry func(V) time.Time) {
	for k, v := range m {
		if now.After(expiry(v)) {
			delete(m, k)
		}
	}
}
