package rtc

import "time"

// Tick applies the timeouts at now: links not open ConnectTimeout after
// they started, and open links that have not been neighbours for Grace,
// are dropped; expired memory is forgotten (crumbs, offers seen,
// relayed peers, back-offs quiet for MaxRetryBackoff after their wait,
// replay windows of peers without a link for SessionMaxAge).
func (p *policy) Tick(now time.Time) {
	for _, l := range p.sortedLinks() {
		if p.links[l.peer] != l {
			continue // dropped as an orphan of an earlier one
		}
		switch {
		case !l.open && now.Sub(l.started) > p.cfg.ConnectTimeout:
			p.drop(l, causeTimeout, "", now)
		case l.open && !l.strayed.IsZero() && now.Sub(l.strayed) > p.cfg.Grace:
			p.drop(l, causeStray, "", now)
		}
	}
	until := func(t time.Time) time.Time { return t }
	forget(p.crumbs, now, func(c crumb) time.Time { return c.until })
	forget(p.seen, now, until)
	forget(p.win.relayed, now, until)
	forget(p.backoff, now, func(b backoff) time.Time { return b.until.Add(p.cfg.MaxRetryBackoff) })
	p.forgetReplay(now)
	p.forgetStrikes(now)
	p.forgetBuckets(now)
	p.forgetServerOffers(now)
}
