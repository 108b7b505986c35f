package gpu

import "github.com/peerlearn/peerlearn/engine/nn"

// Factory returns a constructor of libtorch backends with the given
// configuration, in the shape a peer's training hook takes (see the
// package documentation): it returns a nil nn.Backend, not a typed nil,
// with New's error (ErrNotBuilt without the torch tag). Each call builds
// a new model; the caller owns it (Close, or leave it to the collector).
func Factory(cfg Config) func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
	return func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
		b, err := New(arch, opt, cfg)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
}
