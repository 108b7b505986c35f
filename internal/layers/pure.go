package layers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Pure lists the module-relative roots of the pure packages: computation
// and protocol state machines, the peer runtime's core (peer/node) and
// the learning peer among them, which the browser, the native peer and
// the simulator run alike. They may not reach the network, the file
// system, processes or signals themselves: time comes in as values,
// randomness from generators passed in, I/O through their shells. The
// Makefile's PURE_PKGS tests the same packages under GOOS=js.
var Pure = []string{
	"types", "engine", "protocol", "theory", "peer/learn", "peer/node",
	"internal/f32", "internal/wire", "internal/detmath", "internal/modelwire",
}

// impure are the standard packages a pure package may not import.
var impure = []string{"net", "net/http", "os", "os/exec", "os/signal", "syscall"}

// IsPure reports whether a module-relative package path is under Pure.
func IsPure(rel string) bool {
	return slices.ContainsFunc(Pure, func(root string) bool { return rel == root || strings.HasPrefix(rel, root+"/") })
}

// CheckPure returns one line per pure package (not a command: commands
// are shells) that imports one of the impure standard packages. names
// maps a package to its package name ("main" for a command).
func CheckPure(module string, imports map[string][]string, names map[string]string) []string {
	var bad []string
	for pkg, deps := range imports {
		rel, ok := strings.CutPrefix(pkg, module+"/")
		if !ok || !IsPure(rel) || names[pkg] == "main" {
			continue
		}
		for _, d := range deps {
			if slices.Contains(impure, d) {
				bad = append(bad, fmt.Sprintf("%s is pure and imports %s", rel, d))
			}
		}
	}
	sort.Strings(bad)
	return bad
}
