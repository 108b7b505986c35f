package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/peerlearn/peerlearn/engine/modelcodec"
)

// compressionSelectEnv names the environment variable that runs a subset
// of the compression scenario, for comparing a few codecs over more seeds
// without running every cell, e.g.
//
//	PEERLEARN_COMPRESSION_SELECT='codecs=delta-int4,delta-int4:64 methods=dpsgd,plexus seeds=5'
//
// Keys (space-separated, each optional): codecs (f32, the reference of
// every ratio and gap, is always run), methods, seeds (how many, counted
// from -seed). The subset is printed with the table, so its numbers are
// never mistaken for a full run's.
const compressionSelectEnv = "PEERLEARN_COMPRESSION_SELECT"

// compressionPlan is what one run of the scenario compares.
type compressionPlan struct {
	codecs, methods []string
	seeds           int
	// rounds is each run's max_rounds.
	rounds   int
	selected string
}

// applySelect narrows p to spec (see compressionSelectEnv).
func (p *compressionPlan) applySelect(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return nil
	}
	for _, kv := range strings.Fields(spec) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return fmt.Errorf("%s: %q is not key=value", compressionSelectEnv, kv)
		}
		vals := strings.Split(v, ",")
		switch k {
		case "codecs":
			p.codecs = []string{compressionCodecs[0]}
			for _, c := range vals {
				if _, err := modelcodec.Parse(c); err != nil {
					return fmt.Errorf("%s: %w", compressionSelectEnv, err)
				}
				if !slices.Contains(p.codecs, c) {
					p.codecs = append(p.codecs, c)
				}
			}
		case "methods":
			for _, m := range vals {
				if !slices.Contains(compressionMethods, m) {
					return fmt.Errorf("%s: unknown method %q (want %v)", compressionSelectEnv, m, compressionMethods)
				}
			}
			p.methods = vals
		case "seeds":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 16 {
				return fmt.Errorf("%s: seeds %q: want 1 to 16", compressionSelectEnv, v)
			}
			p.seeds = n
		default:
			return fmt.Errorf("%s: unknown key %q (codecs, methods, seeds)", compressionSelectEnv, k)
		}
	}
	if len(p.codecs) < 2 {
		return fmt.Errorf("%s: codecs: name one besides %s, the reference", compressionSelectEnv, compressionCodecs[0])
	}
	p.selected = spec
	return nil
}

// compressionSelected reads compressionSelectEnv into p.
func (p *compressionPlan) compressionSelected() error {
	return p.applySelect(os.Getenv(compressionSelectEnv))
}
