package export

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
)

// Metadata keys PeerLearn writes in a safetensors file's __metadata__
// (besides "format": "pt"). They describe, they do not decide: the reader
// checks tensors against the architecture it is given.
const (
	MetaArch       = "peerlearn.arch"       // Arch.String()
	MetaSequential = "peerlearn.sequential" // the Sequential, as a JSON list of Module
	MetaInput      = "peerlearn.input"      // "N,C,H,W" with N literal
)

// Safetensors encodes params, the flat parameters of a, as a safetensors
// file: every tensor float32 ("F32"), named and shaped as the state_dict
// of Sequential(a), stored in flat order without gaps. The JSON header is
// padded with spaces to a multiple of 8 bytes, as the reference writer
// does, so the tensors are aligned.
func Safetensors(a nn.Arch, params []float32) ([]byte, error) {
	p, err := newPlan(a)
	if err != nil {
		return nil, err
	}
	if err := p.check(params); err != nil {
		return nil, err
	}
	seq, err := json.Marshal(p.modules)
	if err != nil {
		return nil, err
	}
	meta := map[string]string{
		"format":       "pt",
		MetaArch:       a.String(),
		MetaSequential: string(seq),
		MetaInput:      fmt.Sprintf("N,%d,%d,%d", p.in.C, p.in.H, p.in.W),
	}
	var h strings.Builder
	h.WriteString(`{"__metadata__":`)
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	h.Write(mb)
	for _, t := range p.params {
		shape, _ := json.Marshal(t.Shape)
		begin := 4 * t.Offset
		fmt.Fprintf(&h, `,%q:{"dtype":"F32","shape":%s,"data_offsets":[%d,%d]}`, t.Name, shape, begin, begin+4*t.size())
	}
	h.WriteByte('}')
	for h.Len()%8 != 0 {
		h.WriteByte(' ')
	}
	out := make([]byte, 8, 8+h.Len()+4*len(params))
	binary.LittleEndian.PutUint64(out, uint64(h.Len()))
	out = append(out, h.String()...)
	for _, v := range params {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
	}
	return out, nil
}

// ReadSafetensors loads a safetensors file as the parameters of a: the
// file must hold exactly the tensors Safetensors writes for a (same
// names, F32, same shapes; any order in the buffer) and every value must
// be finite. Errors name the first tensor that does not fit and wrap
// ErrFormat (not a valid safetensors file) or nn.ErrMismatch (a valid
// file for another model), or nn.ErrNonFinite.
func ReadSafetensors(b []byte, a nn.Arch) ([]float32, error) {
	p, err := newPlan(a)
	if err != nil {
		return nil, err
	}
	f, err := Decode(b)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]Entry, len(f.Tensors))
	for _, e := range f.Tensors {
		byName[e.Name] = e
	}
	params := make([]float32, p.count)
	for _, want := range p.params {
		e, ok := byName[want.Name]
		if !ok {
			return nil, fmt.Errorf("%w: tensor %q (%v) is missing for %s", nn.ErrMismatch, want.Name, want.Shape, a.Name)
		}
		delete(byName, want.Name)
		if e.DType != "F32" {
			return nil, fmt.Errorf("%w: tensor %q is %s, want F32", nn.ErrMismatch, e.Name, e.DType)
		}
		if !slices.Equal(e.Shape, want.Shape) {
			return nil, fmt.Errorf("%w: tensor %q has shape %v, %s wants %v", nn.ErrMismatch, e.Name, e.Shape, a.Name, want.Shape)
		}
		raw := f.Data(e)
		dst := params[want.Offset : want.Offset+want.size()]
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		if i := f32.FirstNonFinite(dst); i >= 0 {
			return nil, fmt.Errorf("%w: tensor %q value %d is %v", nn.ErrNonFinite, e.Name, i, dst[i])
		}
	}
	if len(byName) > 0 {
		for _, e := range f.Tensors { // the first extra one in file order
			if _, extra := byName[e.Name]; extra {
				return nil, fmt.Errorf("%w: tensor %q is not a parameter of %s (%d tensors expected, file has %d)",
					nn.ErrMismatch, e.Name, a.Name, len(p.params), len(f.Tensors))
			}
		}
	}
	return params, nil
}
