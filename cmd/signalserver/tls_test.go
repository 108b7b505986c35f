package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/signal/server"
)

// -tls-self-signed serves the page over TLS and prints the certificate's
// fingerprint; a client pinning it gets the page, a plain HTTP client
// does not. -metrics-addr moves /metrics off the public address.
func TestSelfSignedTLSAndMetricsAddr(t *testing.T) {
	web := t.TempDir()
	if err := os.WriteFile(filepath.Join(web, "index.html"), []byte("<h1>PeerLearn over TLS</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	certOut := filepath.Join(t.TempDir(), "cert.pem")
	addr, maddr := proctest.FreeAddr(t), proctest.FreeAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SIGNALSERVER_TEST_MAIN=1",
		"SIGNALSERVER_TEST_ARGS=-addr "+addr+" -web "+web+" -tls-self-signed localhost,127.0.0.1 -tls-self-signed-out "+certOut+" -metrics-addr "+maddr)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "tls-fingerprint ") {
				line <- sc.Text()
				return
			}
		}
		close(line)
	}()
	var finger string
	select {
	case l, ok := <-line:
		m := regexp.MustCompile(`^tls-fingerprint sha256=((?:[0-9A-F]{2}:){31}[0-9A-F]{2})$`).FindStringSubmatch(l)
		if !ok || m == nil {
			t.Fatalf("fingerprint line %q", l)
		}
		finger = m[1]
	case <-ctx.Done():
		t.Fatal("no fingerprint printed")
	}
	pem, err := os.ReadFile(certOut)
	if err != nil || !strings.Contains(string(pem), "BEGIN CERTIFICATE") {
		t.Fatalf("certificate file: %v", err)
	}
	pin, err := server.PinnedTLSConfig(finger)
	if err != nil {
		t.Fatal(err)
	}
	pinned := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{TLSClientConfig: pin}}
	fetch := func(c *http.Client, url string) (int, string, error) {
		resp, err := c.Get(url)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	var code int
	var body string
	// Polls until the server answers (bounded): a separate process gives
	// no other sign that it listens.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if code, body, err = fetch(pinned, "https://"+addr+"/"); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || code != 200 || !strings.Contains(body, "PeerLearn over TLS") {
		t.Fatalf("pinned https GET /: %d %q %v", code, body, err)
	}
	plain := &http.Client{Timeout: 3 * time.Second}
	if code, body, err := fetch(plain, "http://"+addr+"/"); err == nil && (code == 200 || strings.Contains(body, "PeerLearn")) {
		t.Fatalf("plain HTTP on the TLS port got %d %q", code, body)
	}
	if code, _, err := fetch(pinned, "https://"+addr+"/metrics"); err != nil || code != http.StatusNotFound {
		t.Fatalf("public /metrics: %d %v, want 404", code, err)
	}
	if code, body, err := fetch(plain, "http://"+maddr+"/metrics"); err != nil || code != 200 || !strings.Contains(body, "peerlearn_signal_connections") {
		t.Fatalf("metrics address: %d %v", code, err)
	}
	if code, _, err := fetch(plain, "http://"+maddr+"/"); err != nil || code != http.StatusNotFound {
		t.Fatalf("page on the metrics address: %d %v", code, err)
	}
}

// -tls-cert/-tls-key serve a certificate from files.
func TestTLSCertFiles(t *testing.T) {
	cert, err := server.SelfSignedCert([]string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(cert.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, server.CertPEM(cert), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := proctest.FreeAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SIGNALSERVER_TEST_MAIN=1",
		"SIGNALSERVER_TEST_ARGS=-addr "+addr+" -no-web -tls-cert "+certFile+" -tls-key "+keyFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pin, _ := server.PinnedTLSConfig(server.Fingerprint(cert.Certificate[0]))
	c := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{TLSClientConfig: pin}}
	// Polls until the process answers (bounded): nothing else says it is up.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := c.Get("https://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Strict-Transport-Security") == "" {
				t.Fatalf("healthz over TLS: %d, HSTS %q", resp.StatusCode, resp.Header.Get("Strict-Transport-Security"))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no TLS healthz: %v", err)
		}
	}
}

// The TLS modes exclude each other and their options need them.
func TestTLSFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-tls-cert", "c.pem"},
		{"-tls-self-signed", "localhost", "-tls-autocert", "a.org"},
		{"-tls-self-signed-out", "x.pem"},
		{"-tls-http-addr", ":80"},
		{"-tls-autocert", "a.org", "-tls-autocert-dir", ""},
		{"-tls-cert", "/nonexistent/c.pem", "-tls-key", "/nonexistent/k.pem"},
	} {
		if err := run(append(args, "-addr", "127.0.0.1:0", "-no-web")); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}
