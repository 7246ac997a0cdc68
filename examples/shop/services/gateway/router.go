// Package gateway routes public requests to the internal services.
package gateway

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
)

// Route maps a public path prefix to an internal service.
type Route struct {
	Prefix  string
	Backend *url.URL
	Public  bool
}

// Router forwards requests by prefix, verifying tokens on non-public routes.
type Router struct {
	routes   []Route
	verifier TokenVerifier
}

// TokenVerifier checks a bearer token and returns the subject it belongs to.
type TokenVerifier interface {
	Verify(token string) (string, error)
}

func NewRouter(routes []Route, verifier TokenVerifier) *Router {
	return &Router{routes: routes, verifier: verifier}
}

func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	for _, route := range r.routes {
		if !strings.HasPrefix(req.URL.Path, route.Prefix) {
			continue
		}
		if !route.Public {
			token := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
			subject, err := r.verifier.Verify(token)
			if err != nil {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			req.Header.Set("X-Subject", subject)
		}
		httputil.NewSingleHostReverseProxy(route.Backend).ServeHTTP(w, req)
		return
	}
	http.NotFound(w, req)
}

// Routes returns a copy of the route table, in matching order.
func (r *Router) Routes() []Route {
	out := make([]Route, len(r.routes))
	copy(out, r.routes)
	return out
}

// Match returns the route a path would be forwarded to: the first prefix in list
// order wins, so more specific prefixes must come before the catch-all ones.
func (r *Router) Match(path string) (Route, bool) {
	for _, route := range r.routes {
		if strings.HasPrefix(path, route.Prefix) {
			return route, true
		}
	}
	return Route{}, false
}

// Shadowed lists prefixes that can never match because an earlier, shorter prefix
// already catches every path they would.
func Shadowed(routes []Route) []string {
	var shadowed []string
	for i, later := range routes {
		for _, earlier := range routes[:i] {
			if strings.HasPrefix(later.Prefix, earlier.Prefix) {
				shadowed = append(shadowed, later.Prefix)
				break
			}
		}
	}
	return shadowed
}

// AmbiguousPrefixes lists prefixes without a trailing slash: "/api/orders" also
// matches "/api/orders-export".
func AmbiguousPrefixes(routes []Route) []string {
	var ambiguous []string
	for _, route := range routes {
		if route.Prefix != "/" && !strings.HasSuffix(route.Prefix, "/") {
			ambiguous = append(ambiguous, route.Prefix)
		}
	}
	return ambiguous
}

// MustRoute builds a route from a prefix and a backend address, panicking on a
// malformed address; route tables are static and checked at start-up.
func MustRoute(prefix, backend string, public bool) Route {
	target, err := url.Parse(backend)
	if err != nil || target.Host == "" {
		panic(fmt.Sprintf("route %s: bad backend %q", prefix, backend))
	}
	return Route{Prefix: prefix, Backend: target, Public: public}
}

// Describe renders the route table for the start-up log.
func Describe(routes []Route) string {
	var b strings.Builder
	for _, route := range routes {
		access := "token"
		if route.Public {
			access = "public"
		}
		fmt.Fprintf(&b, "%-24s -> %-32s %s\n", route.Prefix, route.Backend.String(), access)
	}
	return b.String()
}

// SortedPrefixes returns the prefixes longest first: the order a table should be
// written in so that no route shadows a more specific one.
func SortedPrefixes(routes []Route) []string {
	prefixes := make([]string, 0, len(routes))
	for _, route := range routes {
		prefixes = append(prefixes, route.Prefix)
	}
	sort.SliceStable(prefixes, func(i, j int) bool { return len(prefixes[i]) > len(prefixes[j]) })
	return prefixes
}

// Stack wraps the router in the gateway's middleware, outermost first: request
// ids, then the access log, then rate limiting, so even a 429 is logged with its id.
func (r *Router) Stack(logger *log.Logger, limiter *RateLimiter) http.Handler {
	var handler http.Handler = r
	if limiter != nil {
		handler = WithRateLimit(limiter, handler)
	}
	if logger != nil {
		handler = WithAccessLog(logger, handler)
	}
	return WithRequestID(handler)
}

// Public reports whether a path is served without a token. Backends behind public
// routes must not trust X-Subject: the gateway only overwrites it on token routes.
func (r *Router) Public(path string) bool {
	route, ok := r.Match(path)
	return ok && route.Public
}
