package simd128

// Module returns the WebAssembly module: it imports its memory as
// env.mem (the Go instance's memory, so the kernels work on Go slices in
// place) and exports gemm (see gemm). It is built from this package's
// code every time, so no binary is ever kept in the repository.
func Module() []byte {
	m := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

	// Type 0: gemm's signature, no results.
	var t code
	params := gemmParams()
	t.uleb(1).op(0x60).uleb(uint32(len(params))).op(params...).uleb(0)
	m = section(m, 1, t.b)

	// Import env.mem: a memory of at least 0 pages, no maximum.
	var imp code
	imp.uleb(1)
	imp.b = append(imp.b, name("env")...)
	imp.b = append(imp.b, name("mem")...)
	imp.op(0x02, 0x00).uleb(0)
	m = section(m, 2, imp.b)

	// Function 0 has type 0.
	var fn code
	fn.uleb(1).uleb(0)
	m = section(m, 3, fn.b)

	var exp code
	exp.uleb(1)
	exp.b = append(exp.b, name("gemm")...)
	exp.op(0x00).uleb(0)
	m = section(m, 7, exp.b)

	var body code
	body.uleb(1)
	body.b = append(body.b, gemm().body()...)
	return section(m, 10, body.b)
}
