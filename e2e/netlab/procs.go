package netlab

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/peerlearn/peerlearn/internal/proc"
)

// Proc is a process started in a namespace, its stderr in a log file;
// Lines, Field (key=value in its first stdout line), Done, Signal, Kill
// and Tail come from proc.Proc.
type Proc struct {
	*proc.Proc
}

const (
	maxLines  = 2000             // Lines keeps the first 2000 stdout lines
	firstWait = 15 * time.Second // how long StartProc waits for a first line
	stopGrace = 5 * time.Second  // how long Stop waits after SIGTERM
)

// StartProc runs bin with args in namespace ns, stderr to dir/name.log.
// With waitLine it waits up to 15 s for the first stdout line.
func StartProc(ns, dir, name, bin string, args []string, waitLine bool) (*Proc, error) {
	p, err := proc.Start(proc.Options{Name: name, Prefix: []string{"ip", "netns", "exec", ns}, Bin: bin, Args: args,
		LogPath: filepath.Join(dir, name+".log"), Keep: maxLines, DieWithParent: true})
	if err != nil {
		return nil, err
	}
	if !waitLine {
		return &Proc{p}, nil
	}
	if _, err := p.WaitFirst(context.Background(), firstWait); err != nil {
		p.Kill() // a silent one still runs; an exited one is left as it is
		return nil, fmt.Errorf("%w: %s", err, p.Tail(2000))
	}
	return &Proc{p}, nil
}

// Stop sends SIGTERM, waits up to 5 s, then kills.
func (p *Proc) Stop() { p.Proc.Stop(stopGrace) }
