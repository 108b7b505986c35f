package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLANAddressIsNotLoopback(t *testing.T) {
	ip, err := lanIP()
	if err != nil {
		t.Skipf("no LAN interface here: %v", err)
	}
	if ip.IsLoopback() || ip.To4() == nil {
		t.Fatalf("lanIP = %v", ip)
	}
}

// The page copy gets the QR code of the join URL as SVG: a square of
// 21 + 4k modules plus the quiet zone, with black modules drawn.
func TestPageWithQR(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "web")
	if err := os.WriteFile(filepath.Join(src, "index.html"), []byte("<p>page</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "https://192.168.1.20:8443/?task=" + strings.Repeat("ab", 32)
	if err := pageWithQR(src, dst, url); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "index.html")); err != nil || string(b) != "<p>page</p>" {
		t.Fatalf("page not copied: %q %v", b, err)
	}
	svg, err := os.ReadFile(filepath.Join(dst, "join-qr.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(svg, []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `)) || bytes.Count(svg, []byte("h1v1h-1z")) < 100 {
		t.Fatalf("not a QR code SVG: %.200s", svg)
	}
	var terminal bytes.Buffer
	printQR(&terminal, url)
	if lines := strings.Count(terminal.String(), "\n"); lines < 15 {
		t.Errorf("terminal QR code of %d lines:\n%s", lines, terminal.String())
	}
}
