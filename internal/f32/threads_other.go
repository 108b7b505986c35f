//go:build !js

package f32

func maxThreads() int { return 1 << 10 }
