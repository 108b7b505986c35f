// Package report writes experiment results: CSV tables and PNG line plots
// (gonum/plot). It is native-only tooling for the simulators and commands;
// the core packages never import it. Every writer creates the output
// directory as needed.
package report
