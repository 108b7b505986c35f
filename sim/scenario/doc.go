// Package scenario holds the experiments `peerlearn sim train -scenario NAME`
// runs: each reproduces a figure or table of one of the papers, writes CSV
// and PNG files and ends with one summary line. Each scenario is one file
// that registers itself.
package scenario
