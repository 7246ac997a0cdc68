package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
)

// ErrUnknownKey is returned for operator keys that are missing or revoked.
var ErrUnknownKey = errors.New("unknown operator key")

// OperatorPrefix marks operator API keys; customer session tokens never carry it.
const OperatorPrefix = "op_"

// KeyStore holds operator API keys by the SHA-256 of the key, never the key itself.
type KeyStore struct {
	mu     sync.RWMutex
	hashes map[string]string // hex digest -> operator name
}

func NewKeyStore() *KeyStore {
	return &KeyStore{hashes: make(map[string]string)}
}

func digest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Add registers the digest of an operator's key, as read from the deploy platform.
func (s *KeyStore) Add(operator, keyDigest string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hashes[strings.ToLower(keyDigest)] = operator
}

// Revoke removes every key of an operator.
func (s *KeyStore) Revoke(operator string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for hash, name := range s.hashes {
		if name == operator {
			delete(s.hashes, hash)
		}
	}
}

// Verify returns the operator a key belongs to, comparing digests in constant time.
func (s *KeyStore) Verify(key string) (string, error) {
	if !strings.HasPrefix(key, OperatorPrefix) {
		return "", ErrUnknownKey
	}
	want := digest(key)
	s.mu.RLock()
	defer s.mu.RUnlock()
	for hash, operator := range s.hashes {
		if subtle.ConstantTimeCompare([]byte(hash), []byte(want)) == 1 {
			return "operator:" + operator, nil
		}
	}
	return "", ErrUnknownKey
}

// Chain tries operator keys first and falls back to customer session tokens, so
// the router can use one TokenVerifier for both.
type Chain struct {
	Operators *KeyStore
	Sessions  HMACVerifier
}

func (c Chain) Verify(token string) (string, error) {
	if strings.HasPrefix(token, OperatorPrefix) {
		return c.Operators.Verify(token)
	}
	return c.Sessions.Verify(token)
}
