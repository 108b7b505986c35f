package main

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/gpu"
)

// newBackendFunc is learn.Config.NewBackend: nil trains with the pure-Go
// engine.
type newBackendFunc = func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error)

// backendFlag maps -backend (go or torch), -device and -threads to a
// learn.Config.NewBackend. For torch it builds and frees one small model
// first, so that a binary built without -tags torch, or a device that is
// not there, fails at start rather than after joining.
func backendFlag(name, device string, threads int) (newBackendFunc, error) {
	switch name {
	case "go":
		if device != "auto" {
			return nil, fmt.Errorf("%w: -device is for -backend torch", errUsage)
		}
		return nil, nil
	case "torch":
	default:
		return nil, fmt.Errorf("%w: -backend %q: want go or torch", errUsage, name)
	}
	if !gpu.Available() {
		return nil, fmt.Errorf("-backend torch: %w (build the companion with `make companion`)", gpu.ErrNotBuilt)
	}
	cfg := gpu.Config{Threads: threads, Device: device}
	arch, err := nn.NewArch("mlp")
	if err != nil {
		return nil, err
	}
	sgd, err := nn.NewSGD(0.1, 0, 0)
	if err != nil {
		return nil, err
	}
	probe, err := gpu.New(arch, sgd, cfg)
	if err != nil {
		return nil, fmt.Errorf("-backend torch -device %s: %w", device, err)
	}
	if err := probe.Close(); err != nil {
		return nil, err
	}
	return gpu.Factory(cfg), nil
}
