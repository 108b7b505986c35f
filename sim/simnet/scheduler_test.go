package simnet

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestSchedulerOrder(t *testing.T) {
	s := NewScheduler()
	var got []string
	at := func(d time.Duration, name string) {
		if err := s.At(d, func() { got = append(got, name) }); err != nil {
			t.Fatal(err)
		}
	}
	at(30, "c")
	at(10, "a1")
	at(20, "b")
	at(10, "a2") // same time as a1: runs after it, in scheduling order
	at(10, "a3")
	if s.Pending() != 5 {
		t.Fatalf("pending %d", s.Pending())
	}
	if n := s.RunUntil(20); n != 4 || s.Now() != 20 {
		t.Fatalf("RunUntil(20) ran %d, now %v", n, s.Now())
	}
	if err := s.At(19, func() {}); !errors.Is(err, ErrPast) {
		t.Fatalf("At in the past: %v", err)
	}
	s.RunUntil(100)
	if want := []string{"a1", "a2", "a3", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if s.Now() != 100 || s.Executed() != 5 || s.Step() {
		t.Fatalf("now %v executed %d", s.Now(), s.Executed())
	}
}

// workload runs a random cascade of events (each may schedule more, some
// at equal times) and returns the trace of (time, id).
func workload(seed uint64) []int64 {
	s := NewScheduler()
	rng := rand.New(rand.NewPCG(seed, 0))
	var trace []int64
	next := 0
	var spawn func(depth int)
	spawn = func(depth int) {
		id := next
		next++
		s.After(time.Duration(rng.IntN(5)), func() {
			trace = append(trace, int64(s.Now()), int64(id))
			for range rng.IntN(3) {
				if depth < 8 {
					spawn(depth + 1)
				}
			}
		})
	}
	for range 20 {
		spawn(0)
	}
	for s.Step() {
	}
	return trace
}

func TestSchedulerDeterministic(t *testing.T) {
	a, b := workload(7), workload(7)
	if len(a) < 100 {
		t.Fatalf("workload too small: %d", len(a))
	}
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different event order")
	}
	if slices.Equal(a, workload(8)) {
		t.Fatal("different seeds gave the same trace")
	}
	for k := 2; k < len(a); k += 2 {
		if a[k] < a[k-2] {
			t.Fatalf("time went backwards at event %d", k/2)
		}
	}
}
