package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/peerlearn/peerlearn/signal"
)

// collector exports the server's state to Prometheus at scrape time.
type collector struct {
	s                                     *Server
	peers, conns, regs, relayed, refusals *prometheus.Desc
	addrLimited, created, createRefused   *prometheus.Desc
	accuracy, reporting, samples          *prometheus.Desc
	summaries, claims, established        *prometheus.Desc
}

func newCollector(s *Server) *collector {
	return &collector{
		s: s,
		peers: prometheus.NewDesc("peerlearn_signal_peers",
			"Registered peers per hosted task.", []string{"task", "name"}, nil),
		conns: prometheus.NewDesc("peerlearn_signal_connections",
			"Open signalling websockets, registered or not.", nil, nil),
		regs: prometheus.NewDesc("peerlearn_signal_registrations_total",
			"Accepted hellos.", nil, nil),
		relayed: prometheus.NewDesc("peerlearn_signal_relayed_total",
			"Relayed signalling messages by kind.", []string{"kind"}, nil),
		refusals: prometheus.NewDesc("peerlearn_signal_refusals_total",
			"Refused requests and messages by reason.", []string{"reason"}, nil),
		addrLimited: prometheus.NewDesc("peerlearn_signal_addr_limited_total",
			"Handshakes and hellos refused by the per-address and per-subnet limits (also counted in refusals).", []string{"limit"}, nil),
		claims: prometheus.NewDesc("peerlearn_signal_connected_reports_total",
			"\"connected\" reports: claims confirmed by their contact, claims unconfirmed when made, contacts' confirmations, refused reports.", []string{"outcome"}, nil),
		established: prometheus.NewDesc("peerlearn_signal_established_peers",
			"Established peers (handed to newcomers first) per hosted task.", []string{"task", "name"}, nil),
		created: prometheus.NewDesc("peerlearn_signal_tasks_created_total",
			"Tasks created by pages (POST /tasks).", nil, nil),
		createRefused: prometheus.NewDesc("peerlearn_signal_task_create_refused_total",
			"Refused task creations (POST /tasks) by reason.", []string{"reason"}, nil),
		accuracy: prometheus.NewDesc("peerlearn_signal_task_accuracy",
			"Median test accuracy of a task's peers with a fresh summary (their claims; absent when none evaluated).", []string{"task", "name"}, nil),
		reporting: prometheus.NewDesc("peerlearn_signal_task_reporting_peers",
			"Peers of a task with a fresh summary.", []string{"task", "name"}, nil),
		samples: prometheus.NewDesc("peerlearn_signal_task_samples_total",
			"Training samples a task's peers' summaries counted since the server started (claims, bounded per peer).", []string{"task", "name"}, nil),
		summaries: prometheus.NewDesc("peerlearn_signal_summaries_total",
			"Peers' summaries by result.", []string{"result"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.peers, c.conns, c.regs, c.relayed, c.refusals, c.addrLimited, c.created, c.createRefused, c.accuracy, c.reporting, c.samples, c.summaries, c.claims, c.established} {
		ch <- d
	}
}

// Collect implements prometheus.Collector; called concurrently by the
// registry, it only reads atomics and takes the server lock briefly.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	for id, n := range st.Peers {
		ch <- prometheus.MustNewConstMetric(c.peers, prometheus.GaugeValue, float64(n), id.String(), st.TaskNames[id])
	}
	for id, n := range st.Established {
		ch <- prometheus.MustNewConstMetric(c.established, prometheus.GaugeValue, float64(n), id.String(), st.TaskNames[id])
	}
	for outcome, n := range map[string]uint64{"confirmed": st.Claims.Confirmed, "unconfirmed": st.Claims.Unconfirmed,
		"confirmation": st.Claims.Confirmations, "refused": st.Claims.Refused} {
		ch <- prometheus.MustNewConstMetric(c.claims, prometheus.CounterValue, float64(n), outcome)
	}
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(st.Connections))
	ch <- prometheus.MustNewConstMetric(c.regs, prometheus.CounterValue, float64(st.Registrations))
	for k := signal.RelayOffer; k.Valid(); k++ {
		ch <- prometheus.MustNewConstMetric(c.relayed, prometheus.CounterValue, float64(st.Relayed[k]), k.String())
	}
	for l := range numAddrLimits {
		ch <- prometheus.MustNewConstMetric(c.addrLimited, prometheus.CounterValue, float64(st.AddrLimited[l.String()]), l.String())
	}
	for _, code := range signal.Codes() {
		ch <- prometheus.MustNewConstMetric(c.refusals, prometheus.CounterValue, float64(st.Refusals[code]), code.String())
	}
	ch <- prometheus.MustNewConstMetric(c.created, prometheus.CounterValue, float64(st.TasksCreated))
	for id, pt := range st.Progress {
		if pt.Accuracy != nil {
			ch <- prometheus.MustNewConstMetric(c.accuracy, prometheus.GaugeValue, *pt.Accuracy, id.String(), st.TaskNames[id])
		}
		ch <- prometheus.MustNewConstMetric(c.reporting, prometheus.GaugeValue, float64(pt.Reporting), id.String(), st.TaskNames[id])
		ch <- prometheus.MustNewConstMetric(c.samples, prometheus.CounterValue, float64(pt.Samples), id.String(), st.TaskNames[id])
	}
	ch <- prometheus.MustNewConstMetric(c.summaries, prometheus.CounterValue, float64(st.SummariesCounted), "counted")
	ch <- prometheus.MustNewConstMetric(c.summaries, prometheus.CounterValue, float64(st.SummariesRefused), "refused")
	for _, why := range createRefusals {
		ch <- prometheus.MustNewConstMetric(c.createRefused, prometheus.CounterValue, float64(st.CreateRefused[why]), why)
	}
}
