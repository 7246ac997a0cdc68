// Package gateway routes public requests to the internal services.
package gateway

import (
	"net/http"
	"net/http/httputil"
	"net/url"
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
