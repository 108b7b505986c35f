package topology

import (
	"errors"
	"math"
	"testing"
)

func TestEvaluateRing(t *testing.T) {
	g, _ := Ring(9)
	m, err := Evaluate(g)
	if err != nil {
		t.Fatal(err)
	}
	l := (1 + 2*math.Cos(2*math.Pi/9)) / 3
	want := Metrics{Nodes: 9, Edges: 9, MinDegree: 2, MaxDegree: 2, MeanDegree: 2,
		Lambda: l, ConvergenceFactor: 1 / ((1 - l) * (1 - l)), Diameter: 4, AvgShortestPath: 2.5}
	if m.Nodes != want.Nodes || m.Edges != want.Edges || m.MinDegree != 2 || m.MaxDegree != 2 || m.MeanDegree != 2 ||
		m.Diameter != 4 || !near(m.AvgShortestPath, 2.5, 1e-12) || !near(m.Lambda, l, 1e-12) ||
		!near(m.ConvergenceFactor, want.ConvergenceFactor, 1e-9) {
		t.Errorf("Evaluate(ring 9) = %+v, want %+v", m, want)
	}
}

func TestEvaluateDisconnected(t *testing.T) {
	if _, err := Evaluate(twoTriangles(t)); !errors.Is(err, ErrDisconnected) {
		t.Errorf("error = %v, want ErrDisconnected", err)
	}
}
