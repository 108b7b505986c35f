// Command hello prints its build tag's word and $HELLO: proctest's
// Binary and StartEnv tests build and run it.
package main

import (
	"fmt"
	"os"
)

var word = "plain"

func main() { fmt.Println(word, os.Getenv("HELLO")) }
