package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"

	"github.com/peerlearn/peerlearn/signal/server"
)

// tlsFlags are the TLS modes: certificate files, a self-signed
// certificate (LAN demos), or ACME (a public domain). At most one.
type tlsFlags struct {
	cert, key     *string
	selfSigned    *string
	selfSignedOut *string
	autocert      *string
	autocertDir   *string
	httpAddr      *string
}

func addTLSFlags(fs *flag.FlagSet) *tlsFlags {
	return &tlsFlags{
		cert:          fs.String("tls-cert", "", "serve TLS with this PEM certificate (chain) file; needs -tls-key"),
		key:           fs.String("tls-key", "", "PEM private key file for -tls-cert"),
		selfSigned:    fs.String("tls-self-signed", "", "serve TLS with a fresh self-signed ECDSA certificate for these comma-separated host names and IPs (LAN demos; prints its SHA-256 fingerprint)"),
		selfSignedOut: fs.String("tls-self-signed-out", "", "with -tls-self-signed: also write the certificate (PEM) to this file"),
		autocert:      fs.String("tls-autocert", "", "serve TLS with Let's Encrypt certificates (ACME) for these comma-separated domains"),
		autocertDir:   fs.String("tls-autocert-dir", "autocert-cache", "with -tls-autocert: directory caching the ACME account key and certificates"),
		httpAddr:      fs.String("tls-http-addr", "", "with -tls-autocert: plain-HTTP listen address (e.g. :80) answering ACME HTTP-01 challenges and redirecting to https (empty: TLS-ALPN-01 on the TLS port only)"),
	}
}

// tlsSetup is what the chosen mode needs served.
type tlsSetup struct {
	config *tls.Config  // nil: plain HTTP
	acme   http.Handler // with autocert and -tls-http-addr: port 80's handler
	cert   []byte       // the self-signed certificate, PEM
	finger string       // its fingerprint
	spki   string       // its SPKI hash (Chromium's --ignore-certificate-errors-spki-list)
}

// setup builds the TLS config of the chosen mode.
func (f *tlsFlags) setup() (tlsSetup, error) {
	modes := 0
	for _, on := range []bool{*f.cert != "" || *f.key != "", *f.selfSigned != "", *f.autocert != ""} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		return tlsSetup{}, errors.New("choose one of -tls-cert/-tls-key, -tls-self-signed, -tls-autocert")
	case *f.selfSignedOut != "" && *f.selfSigned == "":
		return tlsSetup{}, errors.New("-tls-self-signed-out needs -tls-self-signed")
	case *f.httpAddr != "" && *f.autocert == "":
		return tlsSetup{}, errors.New("-tls-http-addr needs -tls-autocert")
	}
	switch {
	case *f.cert != "" || *f.key != "":
		if *f.cert == "" || *f.key == "" {
			return tlsSetup{}, errors.New("-tls-cert and -tls-key go together")
		}
		c, err := tls.LoadX509KeyPair(*f.cert, *f.key)
		if err != nil {
			return tlsSetup{}, fmt.Errorf("TLS certificate: %w", err)
		}
		return tlsSetup{config: server.ServerTLSConfig(c)}, nil
	case *f.selfSigned != "":
		tc, cert, finger, err := server.SelfSignedTLS(split(*f.selfSigned))
		if err != nil {
			return tlsSetup{}, err
		}
		pem := server.CertPEM(cert)
		if *f.selfSignedOut != "" {
			if err := os.WriteFile(*f.selfSignedOut, pem, 0o644); err != nil {
				return tlsSetup{}, err
			}
		}
		spki, err := server.SPKIFingerprint(cert.Certificate[0])
		if err != nil {
			return tlsSetup{}, err
		}
		return tlsSetup{config: tc, cert: pem, finger: finger, spki: spki}, nil
	case *f.autocert != "":
		m, err := server.Autocert(split(*f.autocert), *f.autocertDir)
		if err != nil {
			return tlsSetup{}, err
		}
		s := tlsSetup{config: server.AutocertTLSConfig(m)}
		if *f.httpAddr != "" {
			s.acme = server.AutocertHTTPHandler(m)
		}
		return s, nil
	}
	return tlsSetup{}, nil
}
