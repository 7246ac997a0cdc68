package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

// ErrBadSubject is returned when a subject cannot be put into a token.
var ErrBadSubject = errors.New("subject must be non-empty and contain no dots")

// Signer issues tokens that HMACVerifier accepts: subject.expiry.signature.
type Signer struct {
	Secret []byte
	Now    func() time.Time
	TTL    time.Duration
}

// Sign returns a token for subject that expires after the signer's TTL.
func (s Signer) Sign(subject string) (string, error) {
	if subject == "" || strings.Contains(subject, ".") {
		return "", ErrBadSubject
	}
	expiry := s.Now().Add(s.TTL).UTC().Format(time.RFC3339)
	payload := subject + "." + expiry
	mac := hmac.New(sha256.New, s.Secret)
	mac.Write([]byte(payload))
	return payload + "." + hex.EncodeToString(mac.Sum(nil)), nil
}

// Expiry reads the expiry of a token without checking its signature; use it only
// to decide when to refresh, never to grant access.
func Expiry(token string) (time.Time, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return time.Time{}, ErrInvalidToken
	}
	expiry, err := time.Parse(time.RFC3339, parts[1])
	if err != nil {
		return time.Time{}, ErrInvalidToken
	}
	return expiry, nil
}

// NeedsRefresh reports whether a token expires within the given window.
func NeedsRefresh(token string, now time.Time, window time.Duration) bool {
	expiry, err := Expiry(token)
	if err != nil {
		return true
	}
	return expiry.Sub(now) < window
}
