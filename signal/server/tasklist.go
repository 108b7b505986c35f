package server

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/peerlearn/peerlearn/protocol/task"
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
// There is no accuracy: the server learns nothing about training (the
// peers' summaries, issue #24 item 7, are not built yet), and a number
// it cannot check would only mislead.
type TaskList struct {
	// Tasks are the listed tasks, by name, then ID (at most
	// maxListedTasks).
	Tasks []TaskInfo `json:"tasks"`
	// Total is the number of hosted tasks (more than len(Tasks) when
	// the list was cut).
	Total int `json:"total"`
}

// TaskInfo describes one hosted task.
type TaskInfo struct {
	ID     string `json:"id"` // 64 hex digits, what the page joins
	Name   string `json:"name"`
	Data   string `json:"data"`  // the data set's name, or "own data" (a manifest)
	Model  string `json:"model"` // the arch or preset name, or "declared: N layers"
	Method string `json:"method"`
	Codec  string `json:"codec"` // "f32" when the spec names none
	Peers  int    `json:"peers"` // registered now (observers not counted)
	// Observers are the task's observers registered now (`peerlearn
	// collect`): they watch, they do not train.
	Observers int `json:"observers,omitempty"`
	MaxPeers  int `json:"max_peers"`
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
	infos := make([]TaskInfo, 0, len(s.tasks))
	for id, ts := range s.tasks {
		info := taskInfo(id.Hex(), ts.spec)
		info.Peers, info.Observers = ts.counts()
		infos = append(infos, info)
	}
	s.mu.Unlock()
	slices.SortFunc(infos, func(a, b TaskInfo) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	return TaskList{Tasks: infos[:min(len(infos), maxListedTasks)], Total: len(infos)}
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
