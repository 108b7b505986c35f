package task

// Engine checks what only a training engine knows about a spec: that the
// names it uses are in the engine's registries and that its architecture
// builds for its data set's samples. Package task does not link the
// engine, so Validate cannot check these; an edge that links one (a
// peer: cmd/peerlearn, the wasm peer) passes its Engine to ValidateFor or
// ParseFor. node.TaskEngine is the one this module's engine provides.
type Engine interface {
	// CheckSpec reports why the engine cannot run s (nil: it can). s has
	// passed Validate.
	CheckSpec(s Spec) error
}

// ValidateFor is Validate, then e's checks; an engine's refusal wraps
// ErrInvalid and the engine's own error.
func (s *Spec) ValidateFor(e Engine) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if err := e.CheckSpec(*s); err != nil {
		return invalid("not runnable by this engine: %w", err)
	}
	return nil
}

// ParseFor is Parse, then e's checks (ValidateFor).
func ParseFor(b []byte, e Engine) (Spec, error) {
	s, err := Parse(b)
	if err != nil {
		return Spec{}, err
	}
	if err := s.ValidateFor(e); err != nil {
		return Spec{}, err
	}
	return s, nil
}
