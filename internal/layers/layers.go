package layers

import (
	"fmt"
	"sort"
	"strings"
)

// Layer is a rank: higher layers build on lower ones.
type Layer int

// The layers, bottom first.
const (
	Vocabulary Layer = iota
	Engine
	Protocol
	Theory
	Peer
	Simulators
	Edges
)

var names = [...]string{"vocabulary", "engine", "protocol", "theory", "peer", "simulators", "edges"}

func (l Layer) String() string {
	if l < 0 || int(l) >= len(names) {
		return fmt.Sprintf("layer(%d)", int(l))
	}
	return names[l]
}

// byDir maps a module-relative top directory (or a two-level one, which
// wins) to its layer.
var byDir = map[string]Layer{
	"types":    Vocabulary,
	"internal": Vocabulary,
	"engine":   Engine,
	"gpu":      Engine,
	"protocol": Protocol,
	"signal":   Protocol,
	"theory":   Theory,
	"peer":     Peer,
	"sim":      Simulators,
	"cmd":      Edges,
	"wasm":     Edges,
	"e2e":      Edges,
}

// Of returns the layer of a module-relative package path ("engine/nn"),
// or false if the path is in no known layer.
func Of(rel string) (Layer, bool) {
	parts := strings.SplitN(rel, "/", 3)
	if len(parts) >= 2 {
		if l, ok := byDir[parts[0]+"/"+parts[1]]; ok {
			return l, true
		}
	}
	l, ok := byDir[parts[0]]
	return l, ok
}

// Check returns one line per violation in imports (package -> its
// imports, module-relative paths for the module's own packages, anything
// else for the rest): an import of a higher layer, or a package of the
// module in no layer. The lines are sorted.
func Check(module string, imports map[string][]string) []string {
	var bad []string
	for pkg, deps := range imports {
		rel, ok := strings.CutPrefix(pkg, module+"/")
		if !ok {
			continue
		}
		from, ok := Of(rel)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: in no layer (add its directory to layers.byDir)", rel))
			continue
		}
		for _, d := range deps {
			drel, ok := strings.CutPrefix(d, module+"/")
			if !ok {
				continue
			}
			to, ok := Of(drel)
			if ok && to > from {
				bad = append(bad, fmt.Sprintf("%s (%v) imports %s (%v), a higher layer", rel, from, drel, to))
			}
		}
	}
	sort.Strings(bad)
	return bad
}
