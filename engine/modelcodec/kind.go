package modelcodec

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is an encoding of a parameter vector.
type Kind uint8

const (
	// F32 is the parameters as they are: 4 bytes each.
	F32 Kind = 1
	// F16 is IEEE half precision, rounded to nearest: 2 bytes each.
	F16 Kind = 2
	// Int8 is one float32 scale per block and a signed byte per
	// parameter: about 1 byte each.
	Int8 Kind = 3
	// DeltaInt8 is Int8 applied to x - x̂ (x̂ the receiver's copy).
	DeltaInt8 Kind = 4
	// DeltaTopK is the largest entries of x - x̂: index gaps as varints
	// and values as fp16.
	DeltaTopK Kind = 5
	// DeltaInt4 is DeltaInt8 with 4 bits a value (-7..7, two a byte):
	// about half a byte a parameter; error feedback carries the coarser
	// rounding into the next delta.
	DeltaInt4 Kind = 6
)

var kindNames = map[Kind]string{F32: "f32", F16: "f16", Int8: "int8", DeltaInt8: "delta-int8", DeltaTopK: "delta-topk", DeltaInt4: "delta-int4"}

// String returns the kind's spec name.
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Delta reports whether k encodes a difference against a reference.
func (k Kind) Delta() bool { return k == DeltaInt8 || k == DeltaTopK || k == DeltaInt4 }

// blocked reports whether k has per-block scales.
func (k Kind) blocked() bool { return k == Int8 || k == DeltaInt8 || k == DeltaInt4 }

func (k Kind) known() bool { _, ok := kindNames[k]; return ok }

const (
	// DefaultBlock is the int8 block length: a float32 scale per 256
	// parameters costs 1.6% over one byte each.
	DefaultBlock = 256
	// MinBlock and MaxBlock bound the block length a message may declare.
	MinBlock, MaxBlock = 16, 1<<16 - 1
	// DefaultTopK is the fraction of a delta's entries DeltaTopK sends.
	DefaultTopK = 0.1
	// MaxAbs bounds every decoded value and every scale times 127: a
	// parameter or a delta beyond it is an attack or a diverged model,
	// and refusing it keeps a hostile scale (1e30) out of aggregation.
	MaxAbs = 1e6
)

// Config is a task's choice of codec.
type Config struct {
	// Kind is the encoding; 0 means F32.
	Kind Kind
	// Block is the block length (Int8, DeltaInt8, DeltaInt4); 0 means
	// DefaultBlock.
	Block int
	// TopK is the fraction of entries DeltaTopK sends, in (0, 1]; 0
	// means DefaultTopK.
	TopK float64
}

// Normalize fills defaults and checks the ranges.
func (c Config) Normalize() (Config, error) {
	if c.Kind == 0 {
		c.Kind = F32
	}
	if !c.Kind.known() {
		return c, fmt.Errorf("%w: kind %d", ErrConfig, c.Kind)
	}
	if c.Block == 0 {
		c.Block = DefaultBlock
	}
	if c.Block < MinBlock || c.Block > MaxBlock {
		return c, fmt.Errorf("%w: block %d, want %d..%d", ErrConfig, c.Block, MinBlock, MaxBlock)
	}
	if c.TopK == 0 {
		c.TopK = DefaultTopK
	}
	if !(c.TopK > 0 && c.TopK <= 1) {
		return c, fmt.Errorf("%w: top-k fraction %v, want (0, 1]", ErrConfig, c.TopK)
	}
	return c, nil
}

// String returns the spec form that Parse reads back.
func (c Config) String() string {
	c, _ = c.Normalize()
	switch {
	case c.Kind.blocked():
		if c.Block != DefaultBlock {
			return c.Kind.String() + ":" + strconv.Itoa(c.Block)
		}
	case c.Kind == DeltaTopK:
		if c.TopK != DefaultTopK {
			return c.Kind.String() + ":" + strconv.FormatFloat(c.TopK, 'g', -1, 64)
		}
	}
	return c.Kind.String()
}

// Names lists the kinds' spec names.
func Names() []string {
	return []string{"f32", "f16", "int8", "delta-int8", "delta-int4", "delta-topk"}
}

// Parse reads a spec's codec: a kind name, optionally ":" and its
// parameter ("int8:128" a block length, "delta-topk:0.05" a fraction).
// "" is F32.
func Parse(s string) (Config, error) {
	if s == "" {
		return Config{Kind: F32}.Normalize()
	}
	name, arg, hasArg := strings.Cut(s, ":")
	var c Config
	for k, n := range kindNames {
		if n == name {
			c.Kind = k
		}
	}
	if c.Kind == 0 {
		return c, fmt.Errorf("%w: codec %q, want one of %s", ErrConfig, s, strings.Join(Names(), ", "))
	}
	if hasArg {
		switch {
		case c.Kind.blocked():
			b, err := strconv.Atoi(arg)
			if err != nil {
				return c, fmt.Errorf("%w: codec %q: block %q is not an integer", ErrConfig, s, arg)
			}
			c.Block = b
		case c.Kind == DeltaTopK:
			f, err := strconv.ParseFloat(arg, 64)
			if err != nil || f == 0 {
				return c, fmt.Errorf("%w: codec %q: fraction %q, want (0, 1]", ErrConfig, s, arg)
			}
			c.TopK = f
		default:
			return c, fmt.Errorf("%w: codec %q takes no parameter", ErrConfig, s)
		}
	}
	return c.Normalize()
}
