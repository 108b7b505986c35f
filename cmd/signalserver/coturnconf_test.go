package main

import (
	"bytes"
	"strings"
	"testing"
)

// The printed coturn configuration carries the shared secret, the
// external IP and the denied private ranges; without a secret it is
// refused.
func TestPrintCoturnConfig(t *testing.T) {
	var b bytes.Buffer
	if err := printCoturnConfig(&b, "s3cret", "198.51.100.7"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"static-auth-secret=s3cret\n", "use-auth-secret\n", "external-ip=198.51.100.7\n",
		"listening-port=3478\n", "denied-peer-ip=192.168.0.0-192.168.255.255\n", "denied-peer-ip=10.0.0.0-10.255.255.255\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("config lacks %q:\n%s", want, b.String())
		}
	}
	if err := printCoturnConfig(&b, "", ""); err == nil {
		t.Error("a config without a secret was printed")
	}
}
