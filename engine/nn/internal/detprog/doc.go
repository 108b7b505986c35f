// Command detprog prints the result of detrun.Run. The determinism test
// builds it with GOOS=wasip1 GOARCH=wasm and runs it in wazero, to
// compare WebAssembly's results with native ones bit for bit.
package main
