package workload

import (
	"fmt"
	"slices"
	"sort"
)

// Scenario is one entry of the catalogue: the seeds' workloads, by name.
type Scenario struct {
	Name        string
	Description string
	// Endpoints are the targets/CONTRACT.md keys a target must implement to run it.
	Endpoints []string
	// NeedsDatabase: the scenario is meaningless without PostgreSQL behind the target.
	NeedsDatabase bool
	Requests      []Request
}

func get(path string) Request {
	return Request{Method: "GET", Path: path, Weight: 1, ExpectStatus: 200}
}

// deviceCommandBody is the ~40-byte command of seed 000 (38 bytes).
const deviceCommandBody = `{"action":"set","value":21,"unit":"C"}`

// eventsWaitMs: seed 000 reports p50 1.2 ms and max 28.9 ms with 10% of traffic on the
// long poll, so its events were ready almost at once; a 1 ms hold reproduces that.
const eventsWaitMs = 1

var catalogue = []Scenario{
	{Name: "ping", Description: "static JSON (seed 001)", Endpoints: []string{"ping"},
		Requests: []Request{get("/api/ping")}},
	{Name: "time", Description: "server time as JSON (seed 001)", Endpoints: []string{"time"},
		Requests: []Request{get("/api/time")}},
	{Name: "db-ping", Description: "one trivial SQL statement (seed 001)", Endpoints: []string{"db-ping"},
		NeedsDatabase: true, Requests: []Request{get("/api/db/ping")}},
	{Name: "db-time", Description: "server time from SQL (seed 001)", Endpoints: []string{"db-time"},
		NeedsDatabase: true, Requests: []Request{get("/api/db/time")}},
	{Name: "health", Description: "JSON through a middleware (seed 004)", Endpoints: []string{"health"},
		Requests: []Request{get("/health")}},
	{Name: "db-document", Description: "one ~420-byte row by primary key, ids spread over 1..10000 (seed 002)",
		Endpoints: []string{"db-document"}, NeedsDatabase: true,
		Requests: []Request{{Method: "GET", Path: "/api/db/document/{id}", Weight: 1, ExpectStatus: 200,
			IDs: &IDRange{Min: 1, Max: 10000}}}},
	{Name: "db-documents", Description: "the first 10 rows of items (seed 003)", Endpoints: []string{"db-documents"},
		NeedsDatabase: true, Requests: []Request{get("/api/db/documents?limit=10")}},
	{Name: "cpu-primes", Description: "primes below 1,000,000 by trial division (seed 003)",
		Endpoints: []string{"cpu-primes"}, Requests: []Request{get("/api/cpu/primes?n=1000000")}},
	{Name: "smart-home", Description: "seed 000's mix: 60% status, 30% device command, 10% long poll",
		Endpoints: []string{"devices-status", "devices-command", "events-live"},
		Requests: []Request{
			{Method: "GET", Path: "/devices/status", Weight: 60, ExpectStatus: 200},
			{Method: "POST", Path: "/devices/{id}/command", Body: deviceCommandBody, Weight: 30, ExpectStatus: 200,
				IDs: &IDRange{Min: 1, Max: 5}}, // the five DEVICES of the contract
			{Method: "GET", Path: fmt.Sprintf("/events/live?wait=%d", eventsWaitMs), Weight: 10, ExpectStatus: 200},
		}},
}

// Lookup returns a copy of the named catalogue entry, safe to modify.
func Lookup(name string) (Scenario, error) {
	for _, s := range catalogue {
		if s.Name == name {
			return s.clone(), nil
		}
	}
	return Scenario{}, fmt.Errorf("workload %q is not in the catalogue (known: %v)", name, Names())
}

// Names lists the catalogue, sorted.
func Names() []string {
	names := make([]string, 0, len(catalogue))
	for _, s := range catalogue {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	return names
}

func (s Scenario) clone() Scenario {
	s.Endpoints = slices.Clone(s.Endpoints)
	s.Requests = slices.Clone(s.Requests)
	for i, r := range s.Requests {
		if r.IDs != nil {
			ids := *r.IDs
			s.Requests[i].IDs = &ids
		}
	}
	return s
}
