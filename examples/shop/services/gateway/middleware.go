package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"log"
	"net/http"
	"sync"
	"time"
)

// RequestIDHeader is set by the gateway when a client did not send one; every
// service logs it and passes it on in service-to-service calls.
const RequestIDHeader = "X-Request-Id"

// WithRequestID makes sure every request carries a request id.
func WithRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get(RequestIDHeader)
		if id == "" {
			id = newRequestID()
			req.Header.Set(RequestIDHeader, id)
		}
		w.Header().Set(RequestIDHeader, id)
		next.ServeHTTP(w, req)
	})
}

func newRequestID() string {
	buf := make([]byte, 12)
	if _, err := rand.Read(buf); err != nil {
		return "req-" + time.Now().UTC().Format("20060102T150405.000000000")
	}
	return hex.EncodeToString(buf)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(status int) {
	s.status = status
	s.ResponseWriter.WriteHeader(status)
}

// WithAccessLog logs method, path, status and duration in UTC. It never logs
// bodies or the Authorization header.
func WithAccessLog(logger *log.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		start := time.Now()
		recorder := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(recorder, req)
		logger.Printf("%s %s %s %d %s id=%s",
			start.UTC().Format(time.RFC3339), req.Method, req.URL.Path, recorder.status,
			time.Since(start).Round(time.Millisecond), req.Header.Get(RequestIDHeader))
	})
}

// RateLimiter is a fixed-window limiter keyed by client address.
type RateLimiter struct {
	Limit  int
	Window time.Duration
	Now    func() time.Time

	mu      sync.Mutex
	windows map[string]window
}

type window struct {
	start time.Time
	count int
}

// Allow records one request from key and reports whether it is within the limit.
func (l *RateLimiter) Allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.windows == nil {
		l.windows = make(map[string]window)
	}
	now := l.Now()
	current := l.windows[key]
	if now.Sub(current.start) >= l.Window {
		current = window{start: now}
	}
	current.count++
	l.windows[key] = current
	return current.count <= l.Limit
}

// WithRateLimit answers 429 once a client exceeds its limit.
func WithRateLimit(limiter *RateLimiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !limiter.Allow(clientKey(req)) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many requests", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, req)
	})
}

func clientKey(req *http.Request) string {
	if forwarded := req.Header.Get("X-Forwarded-For"); forwarded != "" {
		return forwarded
	}
	return req.RemoteAddr
}
