package gateway

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// ParseRoutes reads a route table, one route a line: prefix, backend, and an
// optional "public". Blank lines and lines starting with # are skipped. The order
// of the lines is the matching order.
//
//	/api/checkout/  http://orders:8080
//	/api/products/  http://orders:8080   public
func ParseRoutes(r io.Reader) ([]Route, error) {
	var routes []Route
	scanner := bufio.NewScanner(r)
	number := 0
	for scanner.Scan() {
		number++
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 || len(fields) > 3 {
			return nil, fmt.Errorf("line %d: want prefix, backend and optional public", number)
		}
		public := false
		if len(fields) == 3 {
			if fields[2] != "public" {
				return nil, fmt.Errorf("line %d: unknown flag %q", number, fields[2])
			}
			public = true
		}
		route, err := safeRoute(fields[0], fields[1], public)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", number, err)
		}
		routes = append(routes, route)
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if shadowed := Shadowed(routes); len(shadowed) > 0 {
		return nil, fmt.Errorf("routes never reached, move them up: %s", strings.Join(shadowed, ", "))
	}
	return routes, nil
}

func safeRoute(prefix, backend string, public bool) (route Route, err error) {
	defer func() {
		if recovered := recover(); recovered != nil {
			err = fmt.Errorf("%v", recovered)
		}
	}()
	if !strings.HasPrefix(prefix, "/") {
		return Route{}, fmt.Errorf("prefix %q must start with /", prefix)
	}
	return MustRoute(prefix, backend, public), nil
}
