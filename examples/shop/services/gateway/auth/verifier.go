// Package auth verifies customer session tokens and operator API keys.
package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

var ErrInvalidToken = errors.New("invalid token")

// HMACVerifier accepts tokens of the form subject.expiry.signature.
type HMACVerifier struct {
	Secret []byte
	Now    func() time.Time
}

func (v HMACVerifier) Verify(token string) (string, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", ErrInvalidToken
	}
	expiry, err := time.Parse(time.RFC3339, parts[1])
	if err != nil || v.Now().After(expiry) {
		return "", ErrInvalidToken
	}
	mac := hmac.New(sha256.New, v.Secret)
	mac.Write([]byte(parts[0] + "." + parts[1]))
	if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(parts[2])) {
		return "", ErrInvalidToken
	}
	return parts[0], nil
}
