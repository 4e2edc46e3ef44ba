package preset

import "fmt"

// Endpoint is an endpoint key as written in target.yaml (targets/CONTRACT.md).
type Endpoint string

// The contract's endpoint keys.
const (
	Ping           Endpoint = "ping"
	Time           Endpoint = "time"
	DBPing         Endpoint = "db-ping"
	DBTime         Endpoint = "db-time"
	DevicesStatus  Endpoint = "devices-status"
	DevicesCommand Endpoint = "devices-command"
	EventsLive     Endpoint = "events-live"
	Health         Endpoint = "health"
	DBDocument     Endpoint = "db-document"
	DBDocuments    Endpoint = "db-documents"
	CPUPrimes      Endpoint = "cpu-primes"
)

// Route is how an endpoint is requested. Path is a pattern: {id} stands for a path parameter.
type Route struct {
	Method string
	Path   string
	// DB is true when the endpoint reads PostgreSQL (answers 503 without DATABASE_URL).
	DB bool
}

// routes lists every endpoint in the contract's order.
var routes = []struct {
	key   Endpoint
	route Route
}{
	{Ping, Route{"GET", "/api/ping", false}},
	{Time, Route{"GET", "/api/time", false}},
	{DBPing, Route{"GET", "/api/db/ping", true}},
	{DBTime, Route{"GET", "/api/db/time", true}},
	{DevicesStatus, Route{"GET", "/devices/status", false}},
	{DevicesCommand, Route{"POST", "/devices/{id}/command", false}},
	{EventsLive, Route{"GET", "/events/live", false}},
	{Health, Route{"GET", "/health", false}},
	{DBDocument, Route{"GET", "/api/db/document/{id}", true}},
	{DBDocuments, Route{"GET", "/api/db/documents", true}},
	{CPUPrimes, Route{"GET", "/api/cpu/primes", false}},
}

// AllEndpoints returns every endpoint key in the contract's order.
func AllEndpoints() []Endpoint {
	out := make([]Endpoint, len(routes))
	for i, r := range routes {
		out[i] = r.key
	}
	return out
}

// RouteOf returns the method and path of an endpoint key.
func RouteOf(e Endpoint) (Route, bool) {
	for _, r := range routes {
		if r.key == e {
			return r.route, true
		}
	}
	return Route{}, false
}

// ParseEndpoint checks that key names a contract endpoint.
func ParseEndpoint(key string) (Endpoint, error) {
	if _, ok := RouteOf(Endpoint(key)); !ok {
		return "", fmt.Errorf("unknown endpoint %q (known: %v)", key, AllEndpoints())
	}
	return Endpoint(key), nil
}

// IsDB reports whether the endpoint reads the database.
func (e Endpoint) IsDB() bool {
	r, _ := RouteOf(e)
	return r.DB
}
