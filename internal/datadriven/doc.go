// Package datadriven runs golden test scripts, in the manner of
// cockroachdb/datadriven (used by etcd-io/raft) but with no dependency.
// A script is a sequence of commands, each followed by a line "----" and
// the expected output, which ends at the first blank line:
//
//	# comment
//	join b via=a
//	----
//	ok
//
// A command line is a name followed by arguments, each either a word or
// key=value. Run executes each command through a callback and compares
// its output; with rewrite it writes the actual outputs back instead.
package datadriven
