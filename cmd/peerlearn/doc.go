// Command peerlearn is PeerLearn's command line: flags and wiring only, the
// work lives in the packages. Each subcommand is one file that registers
// itself; `peerlearn help` lists them.
package main
