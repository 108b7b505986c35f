package data

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// strokes draws n images of rows x cols with a few bright strokes and
// anti-aliased edges, digit-like, plus a random-bytes image: the code
// must round-trip both.
func strokes(rng *rand.Rand, n, rows, cols int) []byte {
	px := make([]byte, n*rows*cols)
	for i := range n {
		img := px[i*rows*cols : (i+1)*rows*cols]
		if i == n-1 {
			for j := range img {
				img[j] = byte(rng.IntN(256))
			}
			continue
		}
		for range 3 {
			r, c := rng.IntN(rows), rng.IntN(cols)
			for k := range 8 {
				rr, cc := (r+k)%rows, (c+k/2)%cols
				img[rr*cols+cc] = 255
				if cc+1 < cols && img[rr*cols+cc+1] == 0 {
					img[rr*cols+cc+1] = byte(1 + rng.IntN(254))
				}
			}
		}
	}
	return px
}

func TestPixelCodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][3]int{{200, 28, 28}, {1, 1, 1}, {0, 28, 28}, {130, 5, 3}} {
		n, rows, cols := s[0], s[1], s[2]
		px := strokes(rng, n, rows, cols)
		enc, err := EncodePixels(px, n, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		yields := 0
		back, bn, br, bc, err := DecodePixels(enc, func() { yields++ })
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		if bn != n || br != rows || bc != cols || !slices.Equal(back, px) {
			t.Errorf("%v: decoded %d images of %dx%d, equal %v", s, bn, br, bc, slices.Equal(back, px))
		}
		if want := max(0, (n-1)/64); yields != want {
			t.Errorf("%v: %d yields, want %d (every 64 images)", s, yields, want)
		}
	}
}

func TestEncodeLightRoundTrip(t *testing.T) {
	d := byteDataset(rand.New(rand.NewPCG(3, 4)), 37)
	img, lbl, err := EncodeLight(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadLight(img, lbl, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Shape != d.Shape || !slices.Equal(got.X, d.X) || !slices.Equal(got.Y, d.Y) {
		t.Errorf("ReadLight(EncodeLight(d)): shape %v, X equal %v, Y equal %v", got.Shape, slices.Equal(got.X, d.X), slices.Equal(got.Y, d.Y))
	}
	// Labels of another count are refused.
	_, lbl2, err := EncodeLight(&Dataset{Name: "x", X: d.X[:15], Y: d.Y[:1], Shape: d.Shape, Classes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLight(img, lbl2, 10, nil); !errors.Is(err, ErrMismatch) {
		t.Errorf("37 images with 1 label: %v, want ErrMismatch", err)
	}
}

// Bad input is an error, never a panic or a huge allocation.
func TestPixelCodeRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	px := strokes(rng, 20, 28, 28)
	enc, err := EncodePixels(px, 20, 28, 28)
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(enc)
	flipped[len(flipped)/2] ^= 0x40
	huge := slices.Clone(enc)
	huge[5], huge[6] = 0x7f, 0xff // 2^31 images
	version := slices.Clone(enc)
	version[4] = 9
	for name, b := range map[string][]byte{
		"flipped": flipped, "truncated": enc[:len(enc)-40], "header only": enc[:pxHeader], "huge": huge,
		"version": version, "not a code": []byte("PK\x03\x04 and more bytes than a header"), "empty": nil,
	} {
		if _, _, _, _, err := DecodePixels(b, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := EncodePixels(px, 21, 28, 28); !errors.Is(err, ErrInvalid) {
		t.Errorf("21 images in 20 images' pixels: %v, want ErrInvalid", err)
	}
}
