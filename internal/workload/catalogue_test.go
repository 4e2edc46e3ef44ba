package workload

import (
	"reflect"
	"strings"
	"testing"
)

// contractKeys are the endpoint keys of targets/CONTRACT.md.
var contractKeys = map[string]bool{"ping": true, "time": true, "db-ping": true, "db-time": true,
	"devices-status": true, "devices-command": true, "events-live": true, "health": true,
	"db-document": true, "db-documents": true, "cpu-primes": true}

func TestCatalogueEntriesAreValid(t *testing.T) {
	want := []string{"cpu-primes", "db-document", "db-documents", "db-ping", "db-time", "health", "ping", "smart-home", "time"}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, name := range Names() {
		s, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateRequests(name+".requests", s.Requests); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if len(s.Endpoints) == 0 {
			t.Errorf("%s: lists no contract endpoint", name)
		}
		for _, e := range s.Endpoints {
			if !contractKeys[e] {
				t.Errorf("%s: endpoint %q is not a targets/CONTRACT.md key", name, e)
			}
		}
		if dbEndpoint := strings.HasPrefix(s.Endpoints[0], "db-"); dbEndpoint != s.NeedsDatabase {
			t.Errorf("%s: NeedsDatabase %v for endpoints %v", name, s.NeedsDatabase, s.Endpoints)
		}
	}
}

func TestCataloguePaths(t *testing.T) {
	cases := map[string]string{
		"ping": "/api/ping", "time": "/api/time", "db-ping": "/api/db/ping", "db-time": "/api/db/time",
		"health": "/health", "db-documents": "/api/db/documents?limit=10", "cpu-primes": "/api/cpu/primes?n=1000000",
		"db-document": "/api/db/document/{id}",
	}
	for name, path := range cases {
		s, _ := Lookup(name)
		if len(s.Requests) != 1 || s.Requests[0].Path != path || s.Requests[0].Method != "GET" || s.Requests[0].ExpectStatus != 200 {
			t.Errorf("%s: requests %+v, want one GET %s expecting 200", name, s.Requests, path)
		}
	}
	doc, _ := Lookup("db-document")
	if *doc.Requests[0].IDs != (IDRange{Min: 1, Max: 10000}) {
		t.Errorf("db-document ids %+v, want 1..10000", doc.Requests[0].IDs)
	}
}

func TestSmartHomeMix(t *testing.T) {
	s, _ := Lookup("smart-home")
	if len(s.Requests) != 3 {
		t.Fatalf("smart-home has %d requests", len(s.Requests))
	}
	status, cmd, events := s.Requests[0], s.Requests[1], s.Requests[2]
	if status.Method != "GET" || status.Path != "/devices/status" || status.Weight != 60 {
		t.Errorf("status request %+v", status)
	}
	if cmd.Method != "POST" || cmd.Path != "/devices/{id}/command" || cmd.Weight != 30 || cmd.ExpectStatus != 200 {
		t.Errorf("command request %+v", cmd)
	}
	if n := len(cmd.Body); n < 35 || n > 45 {
		t.Errorf("command body is %d bytes, want about 40", n)
	}
	if !strings.HasPrefix(events.Path, "/events/live?wait=") || events.Weight != 10 {
		t.Errorf("events request %+v", events)
	}
	// Every command addresses one of the contract's five devices.
	for i := int64(0); i < 20; i++ {
		p := cmd.ExpandPath(i)
		if !strings.HasPrefix(p, "/devices/") || !strings.ContainsAny(p[len("/devices/"):][:1], "12345") {
			t.Errorf("iteration %d: %s", i, p)
		}
	}
}

func TestLookupReturnsACopy(t *testing.T) {
	a, _ := Lookup("smart-home")
	a.Requests[1].IDs.Max = 99
	a.Endpoints[0] = "changed"
	b, _ := Lookup("smart-home")
	if b.Requests[1].IDs.Max != 5 || b.Endpoints[0] != "devices-status" {
		t.Errorf("Lookup shares state with the catalogue: %+v", b)
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := Lookup("pong")
	if err == nil || !strings.Contains(err.Error(), `"pong"`) || !strings.Contains(err.Error(), "ping") {
		t.Errorf("error %v should name the workload and list the known ones", err)
	}
}
