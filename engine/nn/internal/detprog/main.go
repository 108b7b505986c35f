package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/peerlearn/peerlearn/engine/nn/internal/detrun"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	steps := flag.Int("steps", 20, "SGD steps per architecture")
	flag.Parse()
	rs, err := detrun.Run(*seed, *steps)
	if err == nil {
		err = detrun.Print(os.Stdout, rs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "detprog:", err)
		os.Exit(1)
	}
}
