package overlay

// dropExpired returns s without its prefix of entries whose time is up
// at now (until <= now), in place: the node's short memories (tombstones,
// excuses, stalls) are kept in order of their deadlines, all of one
// length, so the expired ones are a prefix.
func dropExpired[T any](s []T, now int64, until func(T) int64) []T {
	k := 0
	for k < len(s) && until(s[k]) <= now {
		k++
	}
	if k == 0 {
		return s
	}
	return append(s[:0], s[k:]...)
}
