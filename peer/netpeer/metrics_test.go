//go:build !js

package netpeer

import (
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/peer/rtc"
)

// Every refusal a status counts reaches /metrics under its reason, and
// the exposition parses line by line.
func TestMetricsCountRefusalsByReason(t *testing.T) {
	s := Status{
		RTC:       rtc.Stats{BadSignature: 7, OffersOverQuota: 3, DeadOffers: 2, ServerOffersRefused: 6, OffersEvicted: 9, Bans: 1, Open: 2},
		Resources: rtc.ResourceUsage{HeldBytes: 1000, PeakPeerBytes: 407080, OverLimit: 4},
		Learn: &LearnStatus{ModelsClipped: 5, ModelsRefused: map[string]int{"dropped": 2, "non_finite": 1},
			Health: &HealthStatus{State: "captured", Neighbours: 8, Disagree: 6, Replacements: 2}},
		Moves: &MoveStatus{Asked: 5, Tries: 2, Moves: 1, Failed: 1, Refused: map[string]int{"cooldown": 3}},
	}
	var b strings.Builder
	if err := writeMetrics(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`peerlearn_rtc_refused_total{reason="bad_signature"} 7`,
		`peerlearn_rtc_refused_total{reason="offers_over_quota"} 3`,
		`peerlearn_rtc_refused_total{reason="replayed"} 0`,
		`peerlearn_rtc_refused_total{reason="dead_offers"} 2`,
		`peerlearn_rtc_refused_total{reason="server_offers_over_budget"} 6`,
		`peerlearn_rtc_refused_total{reason="offers_evicted"} 9`,
		`peerlearn_rtc_bans_total 1`,
		`peerlearn_rtc_open_connections 2`,
		`peerlearn_transfer_memory_bytes{what="peak_one_peer"} 407080`,
		`peerlearn_transfer_memory_refused_total 4`,
		`peerlearn_models_refused_total{reason="dropped"} 2`,
		`peerlearn_models_refused_total{reason="non_finite"} 1`,
		`peerlearn_models_clipped_total 5`,
		`peerlearn_health_captured 1`,
		`peerlearn_health_disagreeing_neighbors 6`,
		`peerlearn_health_replacements_asked_total 2`,
		`peerlearn_moves_total{outcome="moved"} 1`,
		`peerlearn_moves_total{outcome="failed"} 1`,
		`peerlearn_moves_total{outcome="refused_cooldown"} 3`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	// Each line is a comment or "name{labels} value".
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(line, "# ") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || !strings.HasPrefix(f[0], "peerlearn_") {
			t.Errorf("bad line %q", line)
		}
	}
	// No learner: no model families.
	b.Reset()
	_ = writeMetrics(&b, Status{})
	if strings.Contains(b.String(), "peerlearn_models_") {
		t.Error("model metrics without a learner")
	}
	// A learner without the check: no health families.
	b.Reset()
	_ = writeMetrics(&b, Status{Learn: &LearnStatus{}})
	if strings.Contains(b.String(), "peerlearn_health_") {
		t.Error("health metrics without the check")
	}
}
