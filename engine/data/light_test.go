package data

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// byteDataset is a dataset whose pixels are v/255 for bytes v, as decoded
// IDX files hold.
func byteDataset(rng *rand.Rand, n int) *Dataset {
	d := &Dataset{Name: "bytes", Shape: [3]int{5, 3, 1}, Classes: 10, X: make([]float32, n*15), Y: make([]int32, n)}
	for i := range d.X {
		d.X[i] = pixelScale[rng.IntN(256)]
	}
	d.X[0], d.X[1] = 0, 1 // both ends
	for i := range d.Y {
		d.Y[i] = int32(rng.IntN(10))
	}
	return d
}

func TestEncodeIDXRoundTrip(t *testing.T) {
	d := byteDataset(rand.New(rand.NewPCG(3, 4)), 37)
	img, lbl, err := EncodeIDX(d)
	if err != nil {
		t.Fatal(err)
	}
	if !isGzip(img) || !isGzip(lbl) {
		t.Fatalf("not gzipped")
	}
	back, err := ReadIDXClasses(img, lbl, 10)
	if err != nil {
		t.Fatal(err)
	}
	if back.Shape != d.Shape || !slices.Equal(back.X, d.X) || !slices.Equal(back.Y, d.Y) {
		t.Fatalf("decoded %v %d values %d labels, want %v %d %d, equal", back.Shape, len(back.X), len(back.Y), d.Shape, len(d.X), len(d.Y))
	}
}

func TestEncodeIDXRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for name, bad := range map[string]func(d *Dataset){
		"non-byte pixel": func(d *Dataset) { d.X[7] = 0.3 },
		"negative":       func(d *Dataset) { d.X[7] = -pixelScale[1] },
		"over one":       func(d *Dataset) { d.X[7] = 1 + pixelScale[1] },
		"two channels":   func(d *Dataset) { d.Shape = [3]int{5, 1, 3} },
		"bad label":      func(d *Dataset) { d.Y[2] = 10 },
	} {
		d := byteDataset(rng, 4)
		bad(d)
		if _, _, err := EncodeIDX(d); !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrLabel) {
			t.Errorf("%s: err %v, want ErrInvalid or ErrLabel", name, err)
		}
	}
}

func TestLightDir(t *testing.T) {
	a, err := LightDir("mnist", "dirichlet:0.5", 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a, "light/mnist/") || !strings.HasSuffix(a, "-8") {
		t.Fatalf("LightDir = %q", a)
	}
	// Another spelling of the same spec is the same partition.
	if b, _ := LightDir("mnist", "dirichlet:0.50", 8, 1); b != a {
		t.Errorf("dirichlet:0.50 gives %q, dirichlet:0.5 %q", b, a)
	}
	for _, o := range [][4]any{{"mnist", "dirichlet:0.5", 8, uint64(2)}, {"mnist", "dirichlet:1", 8, uint64(1)}, {"fashion-mnist", "dirichlet:0.5", 8, uint64(1)}} {
		if b, _ := LightDir(o[0].(string), o[1].(string), o[2].(int), o[3].(uint64)); b == a {
			t.Errorf("%v gives the same directory as mnist dirichlet:0.5 8 1", o)
		}
	}
	if _, err := LightDir("cifar", "iid", 8, 1); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown dataset: %v", err)
	}
	if _, err := LightDir("mnist", "nonsense", 8, 1); err == nil {
		t.Errorf("bad spec accepted")
	}
	if _, err := LightDir("mnist", "iid", 0, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("0 parts: %v", err)
	}
}
