//go:build !js

package netpeer

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/peerlearn/peerlearn/engine/health"
)

// writeMetrics writes the refusals and resource use of a status in the
// Prometheus text format (version 0.0.4), for GET /metrics beside
// /status: what an operator scrapes to see a peer under attack. Every
// refusal the transport or the learner counts appears once, labelled by
// its reason; the page and /status say the same in words and JSON.
func writeMetrics(w io.Writer, s Status) error {
	var b strings.Builder
	family := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	r := s.RTC
	family("peerlearn_rtc_refused_total", "counter", "Frames, sessions and offers the transport refused, by reason.")
	for _, c := range []struct {
		reason string
		n      uint64
	}{
		{"bad_signature", r.BadSignature}, {"replayed", r.Replayed}, {"bad_version", r.BadVersion},
		{"oversized", r.Oversized}, {"unknown_kind", r.UnknownKind}, {"malformed", r.Malformed},
		{"over_budget", r.OverBudget}, {"banned", r.BannedRefused}, {"offers_over_quota", r.OffersOverQuota},
		{"server_offers_over_budget", r.ServerOffersRefused}, {"dead_offers", r.DeadOffers}, {"offers_evicted", r.OffersEvicted},
		{"inbound_dropped", r.InboundDropped}, {"rate_limited", r.RateLimited}, {"session_refused", r.SessionsRefused},
		{"transfer_refused", r.TransfersRefused}, {"hash_mismatch", r.HashMismatches},
	} {
		fmt.Fprintf(&b, "peerlearn_rtc_refused_total{reason=%q} %d\n", c.reason, c.n)
	}
	family("peerlearn_rtc_bans_total", "counter", "Peers banned for too many refused frames.")
	fmt.Fprintf(&b, "peerlearn_rtc_bans_total %d\n", r.Bans)
	family("peerlearn_rtc_denied_total", "counter", "Peers denied as repeat offenders in model exchange (their links closed).")
	fmt.Fprintf(&b, "peerlearn_rtc_denied_total %d\n", r.Denied)
	family("peerlearn_rtc_logs_suppressed_total", "counter", "Refusal log lines folded into summaries.")
	fmt.Fprintf(&b, "peerlearn_rtc_logs_suppressed_total %d\n", r.LogsSuppressed)
	family("peerlearn_rtc_open_connections", "gauge", "Open peer connections.")
	fmt.Fprintf(&b, "peerlearn_rtc_open_connections %d\n", r.Open)
	family("peerlearn_overlay_refused_total", "counter", "Overlay messages dropped on arrival.")
	fmt.Fprintf(&b, "peerlearn_overlay_refused_total %d\n", s.OverlayRefused)
	u := s.Resources
	family("peerlearn_transfer_memory_bytes", "gauge", "Incoming transfer memory: held now, peaks and limits.")
	for _, c := range []struct {
		what string
		n    int64
	}{
		{"held", u.HeldBytes}, {"peak", u.PeakBytes}, {"peak_one_peer", u.PeakPeerBytes},
		{"limit_transfer", u.TransferLimit}, {"limit_peer", u.PeerLimit}, {"limit_system", u.SystemLimit},
	} {
		fmt.Fprintf(&b, "peerlearn_transfer_memory_bytes{what=%q} %d\n", c.what, c.n)
	}
	family("peerlearn_transfer_memory_refused_total", "counter", "Transfer memory reservations refused.")
	fmt.Fprintf(&b, "peerlearn_transfer_memory_refused_total %d\n", u.OverLimit)
	if mv := s.Moves; mv != nil {
		family("peerlearn_moves_total", "counter", "Moves to a new place away from a captured neighbourhood (peer -health): requests by outcome.")
		fmt.Fprintf(&b, "peerlearn_moves_total{outcome=%q} %d\n", "moved", mv.Moves)
		fmt.Fprintf(&b, "peerlearn_moves_total{outcome=%q} %d\n", "failed", mv.Failed)
		reasons := slices.Sorted(maps.Keys(mv.Refused))
		for _, r := range reasons {
			fmt.Fprintf(&b, "peerlearn_moves_total{outcome=%q} %d\n", "refused_"+r, mv.Refused[r])
		}
	}
	if l := s.Learn; l != nil {
		family("peerlearn_models_refused_total", "counter", "Neighbours' models refused, by reason.")
		reasons := make([]string, 0, len(l.ModelsRefused))
		for reason := range l.ModelsRefused {
			reasons = append(reasons, reason)
		}
		slices.Sort(reasons)
		for _, reason := range reasons {
			fmt.Fprintf(&b, "peerlearn_models_refused_total{reason=%q} %d\n", reason, l.ModelsRefused[reason])
		}
		family("peerlearn_models_clipped_total", "counter", "Neighbours' models cut back far beyond an honest spread.")
		fmt.Fprintf(&b, "peerlearn_models_clipped_total %d\n", l.ModelsClipped)
		family("peerlearn_models_bounded_total", "counter", "Neighbours' models whose self-reported claims were capped.")
		fmt.Fprintf(&b, "peerlearn_models_bounded_total %d\n", l.ModelsBounded)
		family("peerlearn_neighbors_dropped_total", "counter", "Times a neighbour was dropped from model exchange for its reputation.")
		fmt.Fprintf(&b, "peerlearn_neighbors_dropped_total %d\n", l.NeighborsDropped)
		if h := l.Health; h != nil {
			family("peerlearn_health_captured", "gauge", "1 while the neighbourhood check finds the neighbourhood captured (peer -health).")
			captured := 0
			if h.State == health.Captured.String() {
				captured = 1
			}
			fmt.Fprintf(&b, "peerlearn_health_captured %d\n", captured)
			family("peerlearn_health_disagreeing_neighbors", "gauge", "Neighbours whose models disagreed with this peer's data in the last round.")
			fmt.Fprintf(&b, "peerlearn_health_disagreeing_neighbors %d\n", h.Disagree)
			family("peerlearn_health_replacements_asked_total", "counter", "New placements the neighbourhood check asked for.")
			fmt.Fprintf(&b, "peerlearn_health_replacements_asked_total %d\n", h.Replacements)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
