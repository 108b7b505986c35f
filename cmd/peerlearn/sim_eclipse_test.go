package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

var eclipseLastLine = regexp.MustCompile(`^eclipse n=(\d+) L=(\d+) keys_before=([1-9]\d*) keys_after=inf$`)

func TestSimEclipseSmall(t *testing.T) {
	var out bytes.Buffer
	if err := runSimEclipse(context.Background(), []string{"-n", "100", "-spaces", "2", "-trials", "2", "-pow-bits", "4"}, &out, t.Logf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if m := eclipseLastLine.FindStringSubmatch(lines[len(lines)-1]); m == nil || m[1] != "100" || m[2] != "2" {
		t.Fatalf("last line %q does not match %v\n%s", lines[len(lines)-1], eclipseLastLine, out.String())
	}
	if !regexp.MustCompile(`(?m)^admissions_after=[1-9]\d* pow_seconds_after=\d+ subnets_after=[1-9]\d*$`).MatchString(out.String()) {
		t.Fatalf("no admissions line in\n%s", out.String())
	}
}
