// Package detrun is the training run the native-vs-WebAssembly
// determinism test repeats in both worlds: a few seeded SGD steps of
// built-in architectures on seeded synthetic data. The test calls Run in
// process and runs detprog (the same Run) as a wasip1 module in wazero.
package detrun
