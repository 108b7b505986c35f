package data

import (
	"errors"
	"math"
	"testing"
)

// ReadCSV never panics: it returns rows that fit the manifest (the
// feature count times the rows, labels in range, finite values) or an
// error wrapping ErrManifest. Run with `go test -fuzz FuzzReadCSV ./engine/data/`.
func FuzzReadCSV(f *testing.F) {
	m := &Manifest{Version: 1, Format: FormatCSV, Input: []int{1, 3, 1}, Label: "letter", Classes: []string{"A", "B"}}
	f.Add([]byte(lettersCSV))
	f.Add([]byte("letter,a,b,c\nA,1,x,3\n"))
	f.Add([]byte("a,letter,b,c\n1,B,2,3\r\n4,A,5,6"))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, y, err := ReadCSV(b, m)
		if err != nil {
			if !errors.Is(err, ErrManifest) {
				t.Fatalf("error without ErrManifest: %v", err)
			}
			return
		}
		if len(y) == 0 || len(x) != 3*len(y) {
			t.Fatalf("%d values for %d rows", len(x), len(y))
		}
		for _, l := range y {
			if l < 0 || l > 1 {
				t.Fatalf("label %d", l)
			}
		}
		for _, v := range x {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("value %v", v)
			}
		}
	})
}

// ParseManifest never panics, and a manifest it accepts encodes and
// parses back. Run with `go test -fuzz FuzzParseManifest ./engine/data/`.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"classes":["A","B"],"files":[{"path":"train.csv","sha256":"0000000000000000000000000000000000000000000000000000000000000000","split":"train"},{"path":"test.csv","sha256":"0000000000000000000000000000000000000000000000000000000000000000","split":"test"}],"format":"csv","input":[1,3,1],"label":"letter","version":1}`))
	f.Add([]byte(`{"classes":["a","b"],"files":[{"class":"a","path":"train/a/x.png","sha256":"1111111111111111111111111111111111111111111111111111111111111111","split":"train"},{"class":"b","path":"test/b/y.jpg","sha256":"1111111111111111111111111111111111111111111111111111111111111111","split":"test"}],"format":"images","input":[28,28,1],"normalize":{"mean":[0.5],"std":[0.25]},"version":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest(b)
		if err != nil {
			if !errors.Is(err, ErrManifest) {
				t.Fatalf("error without ErrManifest: %v", err)
			}
			return
		}
		enc, err := m.Encode()
		if err != nil {
			t.Fatalf("accepted manifest does not encode: %v", err)
		}
		if _, err := ParseManifest(enc); err != nil {
			t.Fatalf("encoded manifest refused: %v", err)
		}
	})
}
