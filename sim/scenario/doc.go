// Package scenario holds the experiments `peerlearn sim train -scenario NAME`
// runs: each reproduces a figure or table of one of the papers, writes CSV
// and PNG files and ends with one summary line. Each scenario is one file
// that registers itself, and each has the same shape (study, in study.go):
// describe (load data, print what will run and the -quick scale-down),
// run (the compared methods), report (table, CSV and PNG files, summary
// line).
package scenario
