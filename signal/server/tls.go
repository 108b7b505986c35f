package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"
)

// SelfSignedCert returns a fresh ECDSA P-256 certificate and key for
// hosts (DNS names and IP addresses), valid from a minute ago for
// validFor. It is for LAN demos: browsers warn about it, and native
// clients pin its Fingerprint (PinnedTLSConfig) instead of trusting a
// CA.
func SelfSignedCert(hosts []string, validFor time.Duration) (tls.Certificate, error) {
	if len(hosts) == 0 {
		return tls.Certificate{}, fmt.Errorf("%w: self-signed certificate: no hosts", ErrConfig)
	}
	if validFor <= 0 {
		return tls.Certificate{}, fmt.Errorf("%w: self-signed certificate: validity %v", ErrConfig, validFor)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"PeerLearn self-signed"}, CommonName: hosts[0]},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  false, // a volunteer who trusts it must not be trusting a CA whose key is on the demo server
	}
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		switch ip := net.ParseIP(h); {
		case h == "":
			return tls.Certificate{}, fmt.Errorf("%w: self-signed certificate: empty host", ErrConfig)
		case ip != nil:
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		default:
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// CertPEM returns c's leaf certificate in PEM (to import it in a browser
// or hand it to a native client).
func CertPEM(c tls.Certificate) []byte {
	if len(c.Certificate) == 0 {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]})
}

// Fingerprint returns the SHA-256 of a DER certificate as colon-separated
// upper-case hex, the form openssl and browsers show
// ("AB:12:...", 95 characters).
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// SPKIFingerprint returns base64(SHA-256(SubjectPublicKeyInfo)) of a DER
// certificate: what Chromium's --ignore-certificate-errors-spki-list
// takes, so that a test or demo browser accepts exactly this
// self-signed certificate.
func SPKIFingerprint(der []byte) (string, error) {
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:]), nil
}

// ParseFingerprint reads a SHA-256 fingerprint with or without colons, in
// any case.
func ParseFingerprint(s string) ([sha256.Size]byte, error) {
	var out [sha256.Size]byte
	b, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(s), ":", ""))
	if err != nil || len(b) != sha256.Size {
		return out, fmt.Errorf("%w: fingerprint %q: want 32 bytes of hex", ErrConfig, s)
	}
	copy(out[:], b)
	return out, nil
}

// errFingerprint is returned by a pinned TLS config's verification.
var errFingerprint = errors.New("signal server: TLS certificate does not match the pinned fingerprint")

// PinnedTLSConfig returns a client TLS config that accepts exactly the
// server certificate with the given SHA-256 fingerprint (what
// -tls-self-signed prints), and nothing else: no CA is consulted, so a
// self-signed certificate works, and any other certificate fails.
func PinnedTLSConfig(fingerprint string) (*tls.Config, error) {
	want, err := ParseFingerprint(fingerprint)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // replaced by the pin below, which checks the leaf itself
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || sha256.Sum256(raw[0]) != want {
				return errFingerprint
			}
			return nil
		},
	}, nil
}

// ServerTLSConfig returns the server side for a certificate (from files
// or SelfSignedCert).
func ServerTLSConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{"h2", "http/1.1"},
	}
}

// SelfSignedTLS is the LAN demo's TLS in one call: a fresh self-signed
// certificate for hosts (valid 30 days), its server config, and its
// fingerprint for clients to pin (PinnedTLSConfig) or to compare with
// what a browser shows.
func SelfSignedTLS(hosts []string) (*tls.Config, tls.Certificate, string, error) {
	cert, err := SelfSignedCert(hosts, 30*24*time.Hour)
	if err != nil {
		return nil, tls.Certificate{}, "", err
	}
	return ServerTLSConfig(cert), cert, Fingerprint(cert.Certificate[0]), nil
}
