package wire

import "testing"

type color uint8

var colors = Names[color]{Kind: "color", Names: []string{1: "red", 2: "green", 4: "blue"}}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		v     color
		name  string
		known bool
	}{
		{0, "color(0)", false}, {1, "red", true}, {2, "green", true}, {3, "color(3)", false},
		{4, "blue", true}, {5, "color(5)", false}, {255, "color(255)", false},
	} {
		if got := colors.String(c.v); got != c.name {
			t.Errorf("String(%d) = %q, want %q", c.v, got, c.name)
		}
		if got := colors.Known(c.v); got != c.known {
			t.Errorf("Known(%d) = %v, want %v", c.v, got, c.known)
		}
	}
}
