package simd128

// export is one function of the module.
type export struct {
	name            string
	params, results []byte
	body            *code
}

func exports() []export {
	return []export{
		{"gemm", gemmParams(), nil, gemm()},
		{"relu", []byte{i32, i32, i32}, nil, relu()},
		{"relu_grad", []byte{i32, i32, i32, i32}, nil, reluGrad()},
		{"sum", []byte{i32, i32}, []byte{f32}, sum()},
		{"non_finite", []byte{i32, i32}, []byte{i32}, nonFinite()},
		{"add_strided", nine(), nil, strided(true)},
		{"copy_strided", nine(), nil, strided(false)},
		{"sgd", []byte{i32, i32, i32, i32, f32, f32, f32, i32}, nil, sgd()},
	}
}

func nine() []byte { return []byte{i32, i32, i32, i32, i32, i32, i32, i32, i32} }

// Module returns the WebAssembly module: it imports its memory as
// env.mem (the Go instance's memory, so the kernels work on Go slices in
// place) and exports gemm, relu, relu_grad, sum, non_finite, add_strided,
// copy_strided and sgd (see each).
// It is built from this package's code every time, so no binary is ever
// kept in the repository.
func Module() []byte {
	m := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	ex := exports()

	// One type per function, in order.
	var t code
	t.uleb(uint32(len(ex)))
	for _, e := range ex {
		t.op(0x60).uleb(uint32(len(e.params))).op(e.params...)
		t.uleb(uint32(len(e.results))).op(e.results...)
	}
	m = section(m, 1, t.b)

	// Import env.mem: a memory of at least 0 pages, no maximum.
	var imp code
	imp.uleb(1)
	imp.b = append(imp.b, name("env")...)
	imp.b = append(imp.b, name("mem")...)
	imp.op(0x02, 0x00).uleb(0)
	m = section(m, 2, imp.b)

	// Function i has type i.
	var fn code
	fn.uleb(uint32(len(ex)))
	for i := range ex {
		fn.uleb(uint32(i))
	}
	m = section(m, 3, fn.b)

	var exp code
	exp.uleb(uint32(len(ex)))
	for i, e := range ex {
		exp.b = append(exp.b, name(e.name)...)
		exp.op(0x00).uleb(uint32(i))
	}
	m = section(m, 7, exp.b)

	var body code
	body.uleb(uint32(len(ex)))
	for _, e := range ex {
		body.b = append(body.b, e.body.body()...)
	}
	return section(m, 10, body.b)
}
