package main

import (
	"strings"
	"testing"
)

// With -trusted-proxies the loopback exemptions are off by default (the
// proxy's own clients would all be exempt otherwise), and asking for an
// exemption that covers a trusted proxy is refused.
func TestTrustedProxyFlags(t *testing.T) {
	base := []string{"-no-web", "-trusted-proxies", "127.0.0.1/32"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// The configuration is accepted: the run gets as far as listening
		// (on an address that cannot be).
		{[]string{"-addr", "256.0.0.1:1"}, "256.0.0.1"},
		{[]string{"-addr", "256.0.0.1:1", "-admission-exempt", "192.168.0.0/16", "-limit-exempt", "10.0.0.0/8"}, "256.0.0.1"},
		{[]string{"-admission-exempt", "127.0.0.0/8"}, "overlaps a trusted proxy"},
		{[]string{"-limit-exempt", "127.0.0.1/32"}, "overlaps a trusted proxy"},
		{[]string{"-proxy-header", "Forwarded"}, "proxy header"},
		{[]string{"-trusted-proxies", "127.0.0.1"}, "-trusted-proxies"},
	} {
		err := run(append(append([]string{}, base...), tc.args...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}
