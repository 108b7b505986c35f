package servertest

import (
	"testing"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Task returns the default task spec renamed to name (a test's own task,
// so that its ID differs from other tests'), after mutate, and its ID.
func Task(t testing.TB, name string, mutate ...func(*task.Spec)) (task.Spec, ident.Task) {
	t.Helper()
	spec := task.DefaultSpec()
	spec.Name = name
	for _, m := range mutate {
		m(&spec)
	}
	id, err := spec.ID()
	if err != nil {
		t.Fatal(err)
	}
	return spec, id
}
