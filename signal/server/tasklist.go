package server

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// maxListedTasks bounds the tasks GET /tasks lists: the response stays
// small whatever the operator hosts (TaskList.Total says how many there
// are).
const maxListedTasks = 100

// TaskList is the body of GET /tasks: the hosted tasks, for the page's
// task picker. Everything in it is public already (a peer of the task
// gets the whole spec in its welcome); admission keys and the like are
// left out anyway, as nobody picking a task needs them.
//
// Accuracy, Reporting and Samples come from the summaries of the peers
// that opted in (progress.go): claims, bounded and taken by the median,
// and absent when no peer reports.
type TaskList struct {
	// Tasks are the listed tasks, by name, then ID (at most
	// maxListedTasks).
	Tasks []TaskInfo `json:"tasks"`
	// Total is the number of hosted tasks (more than len(Tasks) when
	// the list was cut).
	Total int `json:"total"`
	// Create is whether this page may create a task (POST /tasks) and
	// how many more the server takes now; absent when creation is off.
	Create *CreateInfo `json:"create,omitempty"`
}

// CreateInfo tells the page about task creation: how many more, and
// the choices its form offers (the spec's own lists, so the page keeps
// no copy of them).
type CreateInfo struct {
	Left     int       `json:"left"`     // created tasks the server takes now (any address)
	Datasets []string  `json:"datasets"` // what a created task may name
	Archs    []string  `json:"archs"`
	Methods  []string  `json:"methods"`
	Codecs   []string  `json:"codecs"`
	Template task.Spec `json:"template"` // the defaults the form starts from (FedLay's MNIST setting)
}

// TaskInfo describes one hosted task.
type TaskInfo struct {
	ID       string `json:"id"` // 64 hex digits, what the page joins
	Name     string `json:"name"`
	Data     string `json:"data"`  // the data set's name, or "own data" (a manifest)
	Model    string `json:"model"` // the arch or preset name, or "declared: N layers"
	Method   string `json:"method"`
	Codec    string `json:"codec"` // "f32" when the spec names none
	Peers    int    `json:"peers"` // registered now (observers not counted)
	MaxPeers int    `json:"max_peers"`
	// Observers are the task's observers registered now (`peerlearn
	// collect`): they watch, they do not train.
	Observers int  `json:"observers,omitempty"`
	Created   bool `json:"created"` // by a page, not the operator
	// Reporting is the peers with a fresh summary; Accuracy the median of
	// their accuracies (absent: none evaluated); Samples the training
	// samples their summaries counted since the server started.
	Reporting int      `json:"reporting"`
	Accuracy  *float64 `json:"accuracy,omitempty"`
	Samples   uint64   `json:"samples"`
}

// taskInfo describes spec for the list (peers filled in by the caller).
func taskInfo(id string, spec task.Spec) TaskInfo {
	info := TaskInfo{ID: id, Name: spec.Name, Data: spec.Dataset, Model: spec.Arch,
		Method: spec.MethodOf(), Codec: spec.Codec, MaxPeers: spec.MaxPeers}
	if spec.Data != nil {
		info.Data = "own data"
	}
	if m := spec.Model; m != nil {
		if m.Preset != "" {
			info.Model = m.Preset
		} else {
			info.Model = fmt.Sprintf("declared: %d layers", len(m.Layers))
		}
	}
	if info.Codec == "" {
		info.Codec = "f32"
	}
	return info
}

// taskList snapshots the hosted tasks and their peer counts.
func (s *Server) taskList() TaskList {
	s.mu.Lock()
	now := s.now()
	s.sweepCreated(now)
	infos := make([]TaskInfo, 0, len(s.tasks))
	for id, ts := range s.tasks {
		info := taskInfo(id.Hex(), ts.spec)
		info.Peers, info.Observers = ts.counts()
		pt := ts.progress.now(now, info.Peers)
		info.Reporting, info.Accuracy, info.Samples = pt.Reporting, pt.Accuracy, pt.Samples
		info.Created = s.created[id] != nil
		infos = append(infos, info)
	}
	var create *CreateInfo
	if c := s.cfg.TaskCreate; c.Enabled {
		create = &CreateInfo{Left: c.Max - len(s.created), Datasets: s.datasets, Archs: task.ArchNames(),
			Methods: task.MethodNames(), Codecs: task.CodecNames(), Template: task.DefaultSpec()}
	}
	s.mu.Unlock()
	slices.SortFunc(infos, func(a, b TaskInfo) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	return TaskList{Tasks: infos[:min(len(infos), maxListedTasks)], Total: len(infos), Create: create}
}

// serveTasks answers GET /tasks with the TaskList as JSON, never cached
// (the peer counts change).
func (s *Server) serveTasks(w http.ResponseWriter, r *http.Request) {
	b, err := json.Marshal(s.taskList())
	if err != nil { // cannot happen: plain strings and ints
		http.Error(w, "task list: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(append(b, '\n'))
}

// TaskProgress is the body of GET /tasks/{id}/progress: the task's
// history from its peers' summaries (oldest first, every ProgressEvery
// while peers report, at most ProgressPoints) and its point now.
type TaskProgress struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Now     ProgressPoint   `json:"now"`
	History []ProgressPoint `json:"history"`
}

// serveProgress answers GET /tasks/{id}/progress.
func (s *Server) serveProgress(w http.ResponseWriter, r *http.Request) {
	id, err := ident.ParseTask(r.PathValue("id"))
	if err != nil {
		http.Error(w, "task ID: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	ts := s.tasks[id]
	var body TaskProgress
	if ts != nil {
		body = TaskProgress{ID: id.Hex(), Name: ts.spec.Name, Now: ts.progress.now(s.now(), peersOf(ts)),
			History: append([]ProgressPoint{}, ts.progress.history...)}
	}
	s.mu.Unlock()
	if ts == nil {
		http.Error(w, "task not hosted here", http.StatusNotFound)
		return
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(append(b, '\n'))
}
