package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Task creation from the page (POST /tasks), off unless the operator
// turns it on. A created task is hosted like one of Config.Tasks until
// it has been empty for TaskCreateConfig.Idle; the server holds at most
// Max of them, at most PerAddr per client address, so creating tasks
// cannot grow the server's memory or its list without bound. The checks
// are the spec's own (task.Parse: the same as `peerlearn task check`)
// plus what a task hosted beside others must not do: ask a harder
// proof of work of every newcomer (the challenge asks the highest of
// the hosted tasks'), name an admission key the server does not hold,
// or need data the server cannot serve a tab.

// TaskCreateConfig says whether, and how much, pages may create tasks.
type TaskCreateConfig struct {
	// Enabled turns POST /tasks on (default off: 403).
	Enabled bool
	// Max bounds the created tasks hosted at once.
	Max int
	// PerAddr bounds the created tasks hosted at once per client
	// address (AddrLimits.Exempt networks are not counted per address).
	PerAddr int
	// Idle is how long a created task may stay without peers before
	// it is dropped (its slot is free again).
	Idle time.Duration
}

// DefaultTaskCreate is off, with limits for when an operator turns it on.
func DefaultTaskCreate() TaskCreateConfig {
	return TaskCreateConfig{Enabled: false, Max: 16, PerAddr: 2, Idle: time.Hour}
}

func (c TaskCreateConfig) validate() error {
	if c.Max < 1 || c.PerAddr < 1 || c.Idle <= 0 {
		return fmt.Errorf("%w: task creation limits %+v", ErrConfig, c)
	}
	return nil
}

// maxTaskBody bounds a POST /tasks body: a spec with a declared model
// of many layers is a few KiB.
const maxTaskBody = 64 << 10

// Task creation refusals, by reason (the metric's label).
var createRefusals = [...]string{"off", "bad-spec", "not-allowed", "full", "per-address"}

const (
	refuseCreateOff = iota
	refuseCreateBadSpec
	refuseCreateNotAllowed
	refuseCreateFull
	refuseCreatePerAddr
)

// createdTask is what the server keeps of a task a page created.
type createdTask struct {
	by     netip.Addr // the creating client (invalid when exempt)
	active time.Time  // created, or last seen with peers
}

// TaskCreated is the body of a successful POST /tasks.
type TaskCreated struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Existing is true when the same spec was hosted already (the same
	// spec has the same ID): nothing was created.
	Existing bool `json:"existing"`
}

// serveCreateTask answers POST /tasks: 201 with TaskCreated, 200 when the
// spec is hosted already, or an error whose text says what to change.
func (s *Server) serveCreateTask(w http.ResponseWriter, r *http.Request) {
	refuse := func(kind, status int, msg string) {
		s.counters.createRefused[kind].Add(1)
		http.Error(w, msg, status)
	}
	cfg := s.cfg.TaskCreate
	if !cfg.Enabled {
		refuse(refuseCreateOff, http.StatusForbidden, "this server does not let pages create tasks (its operator can allow it: -task-create)")
		return
	}
	if !originAllowed(r, s.cfg.AllowedOrigins) {
		refuse(refuseCreateNotAllowed, http.StatusForbidden, "origin not allowed")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxTaskBody))
	if err != nil {
		refuse(refuseCreateBadSpec, http.StatusRequestEntityTooLarge, fmt.Sprintf("spec over %d bytes", maxTaskBody))
		return
	}
	spec, err := task.Parse(body)
	if err == nil {
		spec, err = spec.Normalized()
	}
	if err != nil {
		refuse(refuseCreateBadSpec, http.StatusBadRequest, err.Error())
		return
	}
	if err := s.creatable(spec); err != nil {
		refuse(refuseCreateNotAllowed, http.StatusBadRequest, err.Error())
		return
	}
	id, _ := spec.ID()
	ip, _, _ := s.cfg.Proxies.clientIP(r.RemoteAddr, r.Header)
	by := s.cfg.AddrLimits.clientOfIP(ip).ip // invalid when exempt
	now := s.now()

	s.mu.Lock()
	s.sweepCreated(now)
	existing := s.tasks[id] != nil
	var status int
	switch {
	case existing:
		status = http.StatusOK
	case len(s.created) >= cfg.Max:
		s.mu.Unlock()
		refuse(refuseCreateFull, http.StatusServiceUnavailable, fmt.Sprintf("this server hosts %d created tasks, its most; try later", cfg.Max))
		return
	case by.IsValid() && s.createdBy(by) >= cfg.PerAddr:
		s.mu.Unlock()
		refuse(refuseCreatePerAddr, http.StatusTooManyRequests, fmt.Sprintf("your address has %d tasks here, its most; they go when empty for %v", cfg.PerAddr, cfg.Idle))
		return
	default:
		s.tasks[id] = &taskState{id: id, spec: spec, peers: map[ident.Peer]*session{}, addrs: newAddrCounts()}
		s.created[id] = &createdTask{by: by, active: now}
		status = http.StatusCreated
	}
	s.mu.Unlock()

	if !existing {
		s.counters.tasksCreated.Add(1)
		s.logf("signal server: task %s (%s) created by %v", id, spec.Name, ip)
	}
	b, _ := json.Marshal(TaskCreated{ID: id.Hex(), Name: spec.Name, Existing: existing})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// errNotCreatable wraps what a created task may not ask of the server.
var errNotCreatable = errors.New("not allowed for a task created here")

// creatable checks what a task hosted beside the others must not do.
func (s *Server) creatable(spec task.Spec) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{errNotCreatable}, a...)...)
	}
	if spec.Data != nil {
		// The page picks local files for a task's form only in a later
		// version; a tab could not get data for it from this server.
		return bad("data: a task on your own data is hosted by the operator (-task), not created from the page")
	}
	if spec.Model != nil && spec.Model.Weights != nil {
		// A URL of the creator's choosing that every volunteer's peer
		// would fetch (and peers do not load initial weights yet).
		return bad("model.weights: initial weights come with a task the operator hosts (-task)")
	}
	if !slices.Contains(s.datasets, spec.Dataset) {
		return bad("dataset %q: this server serves tabs %s", spec.Dataset, strings.Join(s.datasets, ", "))
	}
	if b := spec.PoWBits(); b > s.basePoWBits {
		return bad("admission.pow_bits %d: at most %d here (every newcomer of every task would pay it)", b, s.basePoWBits)
	}
	if spec.AdmissionKey() != nil {
		if err := s.cfg.Admission.validate([]task.Spec{spec}); err != nil {
			return bad("admission.key: not this server's key")
		}
	}
	if spec.MaxPeers > s.cfg.MaxPeers {
		return bad("max_peers %d: this server holds %d peers in all", spec.MaxPeers, s.cfg.MaxPeers)
	}
	return nil
}

// createdBy counts the created tasks of one client address. Called with
// mu held.
func (s *Server) createdBy(ip netip.Addr) int {
	n := 0
	for _, c := range s.created {
		if c.by == ip {
			n++
		}
	}
	return n
}

// sweepCreated drops the created tasks empty for longer than Idle. Called
// with mu held (on every create and list, so a slot frees without a
// timer of its own).
func (s *Server) sweepCreated(now time.Time) {
	for id, c := range s.created {
		ts := s.tasks[id]
		switch {
		case len(ts.peers) > 0:
			c.active = now
		case ts.lastLeft.After(c.active):
			c.active = ts.lastLeft
		}
		if len(ts.peers) == 0 && now.Sub(c.active) > s.cfg.TaskCreate.Idle {
			delete(s.tasks, id)
			delete(s.created, id)
			s.logf("signal server: created task %s (%s) dropped: no peers for %v", id, ts.spec.Name, s.cfg.TaskCreate.Idle)
		}
	}
}

// servedDatasets lists the data sets a tab can fetch from dataDir (a
// folder per data set, as `make data` fills it); every one when there
// is no data directory (tabs then name a data server of their own, and
// native peers bring their data).
func servedDatasets(dataDir string) []string {
	if dataDir == "" {
		return task.DatasetNames()
	}
	var out []string
	for _, name := range task.DatasetNames() {
		if fi, err := os.Stat(filepath.Join(dataDir, name)); err == nil && fi.IsDir() {
			out = append(out, name)
		}
	}
	return out
}
