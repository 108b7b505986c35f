package main

import (
	"strconv"

	"github.com/peerlearn/peerlearn/peer/node"
)

// choiceFlag is a boolean flag with a third value, unset: node.Auto, the
// default for the task's rule, which is known only once the peer has
// joined. -name and -name=true give node.On, -name=false node.Off.
type choiceFlag struct{ c node.Choice }

func (f *choiceFlag) IsBoolFlag() bool { return true }

func (f *choiceFlag) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	f.c = node.Off
	if on {
		f.c = node.On
	}
	return nil
}

func (f *choiceFlag) String() string {
	switch {
	case f == nil || f.c == node.Auto:
		return "auto"
	case f.c == node.On:
		return "true"
	}
	return "false"
}
