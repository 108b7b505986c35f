package server

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// LoadAdmissionKey reads the admission key seed (64 hex digits) from
// path, creating the file with a fresh seed (mode 0600) if it does not
// exist, and sets cfg's Key and Secret from it (the salt secret is derived
// from the seed). Servers of one task share the file's content, and a
// server that restarts with it keeps verifying the tokens it issued: a
// fresh key would make every running peer's token unverifiable to
// newcomers.
func LoadAdmissionKey(path string, cfg *AdmissionConfig) error {
	seed := make([]byte, ed25519.SeedSize)
	rand.Read(seed)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		_, werr := f.WriteString(hex.EncodeToString(seed) + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("%w: admission key %s: %w", ErrConfig, path, werr)
		}
	case errors.Is(err, fs.ErrExist):
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("%w: admission key: %w", ErrConfig, err)
		}
		seed, err = hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(seed) != ed25519.SeedSize {
			return fmt.Errorf("%w: admission key %s: want %d hex digits", ErrConfig, path, 2*ed25519.SeedSize)
		}
	default:
		return fmt.Errorf("%w: admission key: %w", ErrConfig, err)
	}
	cfg.Key = ed25519.NewKeyFromSeed(seed)
	m := hmac.New(sha256.New, seed)
	m.Write([]byte("peerlearn/admission secret v1"))
	m.Sum(cfg.Secret[:0])
	return nil
}
