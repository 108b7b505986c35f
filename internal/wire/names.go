package wire

import "strconv"

// Names is the name table of a one-byte wire enum (a message type, a
// refusal reason): Names[code] is the code's name, "" where a code has
// none. Every codec's MsgType.String and its check for known types read
// one of these, so a new type is one table entry rather than a new case in
// a switch and a moved bound in a range test.
type Names[T ~uint8] struct {
	// Kind is the Go type's name, for codes without a name: "MsgType(9)".
	Kind string
	// Names is indexed by code.
	Names []string
}

// Known reports whether v has a name.
func (n Names[T]) Known(v T) bool { return int(v) < len(n.Names) && n.Names[v] != "" }

// String returns v's name, or Kind(v) for a code without one.
func (n Names[T]) String(v T) string {
	if n.Known(v) {
		return n.Names[v]
	}
	return n.Kind + "(" + strconv.Itoa(int(v)) + ")"
}
