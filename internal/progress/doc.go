// Package progress draws a one-line progress bar for long runs. On a
// terminal it redraws in place; elsewhere (CI logs, pipes) it prints a plain
// line at most every few percent so logs stay short.
package progress
