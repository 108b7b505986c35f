package data

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // the image folder's JPEG files
	_ "image/png"  // and PNG files

	"golang.org/x/image/draw"
)

// MaxImagePixels bounds the decoded size of one image (a small file can
// announce a huge one).
const MaxImagePixels = 1 << 26

// DecodeImage decodes a PNG or JPEG and resizes it to shape's height and
// width with bilinear interpolation (x/image/draw.BiLinear), as greyscale
// (shape channels 1, ITU-R 601 luma, as color.GrayModel) or RGB (3): the
// values, HWC, in [0, 1]. Errors wrap ErrManifest.
func DecodeImage(b []byte, shape [3]int) ([]float32, error) {
	h, w, c := shape[0], shape[1], shape[2]
	if h < 1 || w < 1 || (c != 1 && c != 3) {
		return nil, manifestErr("image shape %v: want HxWx1 or HxWx3", shape)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, manifestErr("not a PNG or JPEG image: %v", err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return nil, manifestErr("%s image of %dx%d pixels: want 1 to %d pixels", format, cfg.Width, cfg.Height, MaxImagePixels)
	}
	src, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, manifestErr("%s image: %v", format, err)
	}
	dst := image.NewRGBA64(image.Rect(0, 0, w, h))
	draw.BiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	out := make([]float32, 0, h*w*c)
	for y := range h {
		for x := range w {
			px := dst.RGBA64At(x, y)
			if c == 1 {
				g := color.Gray16Model.Convert(px).(color.Gray16)
				out = append(out, float32(g.Y)/0xffff)
				continue
			}
			// Premultiplied by alpha: a transparent pixel reads as black.
			out = append(out, float32(px.R)/0xffff, float32(px.G)/0xffff, float32(px.B)/0xffff)
		}
	}
	if len(out) != h*w*c {
		return nil, fmt.Errorf("%w: decoded %d values, want %d", ErrManifest, len(out), h*w*c)
	}
	return out, nil
}
