package task

// The names a spec may use are the spec format's own vocabulary, listed
// here rather than read from the engine's registries: this package must
// not link the engine (the signalling server hosts tasks without it).
// netpeer's TestTaskNamesMatchEngine keeps the lists in step with the
// registries (aggregate.Names, nn.ArchNames, data.Names), and an edge that
// links the engine checks a spec against it through an Engine
// (Spec.ValidateFor).

// SelectionPolicies lists the neighbour selection policies a spec may
// name: "overlay" (FedLay: every overlay neighbour, no choice) and the
// kinds of package selection (the PENS thesis' policies and the Local
// baseline) except "oracle", which needs the true clusters and so exists
// only in simulations. A test keeps this list in step with
// selection.ParseKind.
func SelectionPolicies() []string {
	return []string{"overlay", "local", "random", "greedy", "epsilon-greedy", "pens", "random-weighted"}
}

// MethodNames lists the learning methods a spec may name ("" is
// "fedlay"). A selection policy other than "overlay" belongs to method
// "pens", and method "pens" needs one.
func MethodNames() []string { return []string{"fedlay", "gossip", "dpsgd", "pens", "plexus"} }

// MethodOf returns the method a spec runs: its Method, "" read as
// "fedlay".
func (s Spec) MethodOf() string {
	if s.Method == "" {
		return "fedlay"
	}
	return s.Method
}

// InitModes lists the init modes (learn.InitMode's names).
func InitModes() []string { return []string{"he", "he-gain", "common"} }

// OptimizerNames lists the optimisers (learn.OptimizerConfig's names).
func OptimizerNames() []string { return []string{"sgd", "adam", "adamw"} }

// AggregatorNames lists the aggregators a task may use: the engine's
// (aggregate.Names) without "fedavg", a server's rule that no peer runs.
func AggregatorNames() []string {
	return []string{
		"mean", "decavg", "fedlay", "dechw", // the papers' rules, for trusted peers
		"median", "trimmed-mean", // coordinate-wise, claims ignored
		"clipped-mean", "clipped-decavg", "clipped-fedlay", "clipped-dechw", // claims bounded, models clipped
	}
}

// ArchNames lists the model architectures, sorted (nn.ArchNames).
func ArchNames() []string {
	return []string{"dechw-cnn", "fedlay-mlp", "mlp", "mlp3", "small-cnn"}
}

// CodecNames lists the model codecs (modelcodec.Names); a spec's codec
// is one of them, optionally followed by ":" and its parameter, which
// the engine checks (Engine).
func CodecNames() []string {
	return []string{"f32", "f16", "int8", "delta-int8", "delta-int4", "delta-topk"}
}

// DatasetNames lists the data sets, sorted (data.Names).
func DatasetNames() []string { return []string{"fashion-mnist", "mnist"} }
