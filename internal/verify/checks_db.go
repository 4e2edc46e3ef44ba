package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// DBPingBody is json_build_object('ok', true, 'message', 'OK')::text as PostgreSQL prints it.
const DBPingBody = `{"ok" : true, "message" : "OK"}`

// dbTimeBody is json_build_object('serverTime', ...)::text as PostgreSQL prints it.
var dbTimeBody = regexp.MustCompile(`^\{"serverTime" : (\d+)\}$`)

// Size windows around the contract's "about 420 bytes" and "about 1.2 KB".
const (
	documentMin, documentMax   = 336, 504
	documentsMin, documentsMax = 960, 1440
)

// extraRequests repeat a DB request so pg_stat_statements must rise by more than a stray call.
const extraRequests = 2

// repeat sends n more plain requests and counts the 200s.
func (r *run) repeat(ctx context.Context, path string, n int) int {
	ok := 0
	for i := 0; i < n; i++ {
		if resp, err := r.fetch(ctx, "GET", path, "", r.timeout); err == nil && resp.status == 200 {
			ok++
		}
	}
	return ok
}

func checkDBPing(ctx context.Context, r *run, e *endpoint) {
	t := r.track(ctx, e, preset.DBPing)
	n := 0
	if resp := r.request(ctx, e, "GET /api/db/ping", "GET", "/api/db/ping", "", 200); resp != nil {
		n++
		e.exactBody("body", resp, DBPingBody)
	}
	n += r.repeat(ctx, "/api/db/ping", extraRequests)
	t.done(ctx, n)
}

func checkDBTime(ctx context.Context, r *run, e *endpoint) {
	t := r.track(ctx, e, preset.DBTime)
	n := 0
	if resp := r.request(ctx, e, "GET /api/db/time", "GET", "/api/db/time", "", 200); resp != nil {
		n++
		m := dbTimeBody.FindSubmatch(trimmed(resp.body))
		e.add("body", m != nil, resp.latency, `expected PostgreSQL's text {"serverTime" : <unix seconds>}, got %s`, clip(resp.body))
		if m != nil {
			sec, _ := strconv.ParseInt(string(m[1]), 10, 64)
			got := time.Unix(sec, 0)
			if r.stats != nil {
				if dbNow, err := r.stats.now(ctx); err != nil {
					e.add("serverTime agrees with the database clock", false, 0, "%v", err)
				} else {
					// Whole seconds on both sides, read a moment apart.
					e.near("serverTime agrees with the database clock", got, dbNow, 2*time.Second, resp.latency)
				}
			} else {
				e.near("serverTime near now", got, time.Now(), clockSkew+time.Second, resp.latency)
			}
		}
	}
	n += r.repeat(ctx, "/api/db/time", extraRequests)
	t.done(ctx, n)
}

func checkDBDocument(ctx context.Context, r *run, e *endpoint) {
	t := r.track(ctx, e, preset.DBDocument)
	n := 0
	for _, id := range []int{1, 4242, DocumentCount} {
		path := fmt.Sprintf("/api/db/document/%d", id)
		resp := r.request(ctx, e, "GET "+path, "GET", path, "", 200)
		if resp == nil {
			continue
		}
		n++
		v, err := decode(resp.body)
		if err == nil {
			err = compareRow(v, ExpectedDocument(id), DocumentKeys)
		} else {
			err = fmt.Errorf("not JSON: %v (body %s)", err, clip(resp.body))
		}
		e.add("GET "+path+": row", err == nil, resp.latency, "expected row %d of documents: %s", id, errText(err))
		if id == 1 {
			size := len(trimmed(resp.body))
			e.add("GET "+path+": size", size >= documentMin && size <= documentMax, resp.latency,
				"expected about 420 bytes (%d..%d), got %d", documentMin, documentMax, size)
		}
	}
	r.request(ctx, e, fmt.Sprintf("404 on id %d (no row)", DocumentCount+1), "GET", fmt.Sprintf("/api/db/document/%d", DocumentCount+1), "", 404)
	for _, bad := range []string{"abc", "0", "-3"} {
		label := "400 on id " + bad
		if resp := r.request(ctx, e, label, "GET", "/api/db/document/"+bad, "", 400); resp != nil {
			e.errorBody(label, resp)
		}
	}
	t.done(ctx, n)
}

func checkDBDocuments(ctx context.Context, r *run, e *endpoint) {
	t := r.track(ctx, e, preset.DBDocuments)
	n := 0
	for _, c := range []struct {
		query string
		rows  int
	}{{"", 10}, {"?limit=3", 3}, {"?limit=100", 100}} {
		path := "/api/db/documents" + c.query
		resp := r.request(ctx, e, "GET "+path, "GET", path, "", 200)
		if resp == nil {
			continue
		}
		n++
		err := compareItems(resp.body, c.rows)
		e.add("GET "+path+": rows", err == nil, resp.latency, "expected items 1..%d in id order: %s", c.rows, errText(err))
		if c.query == "" {
			size := len(trimmed(resp.body))
			e.add("GET "+path+": size", size >= documentsMin && size <= documentsMax, resp.latency,
				"expected about 1.2 KB (%d..%d), got %d", documentsMin, documentsMax, size)
		}
	}
	for _, bad := range []string{"0", "101", "abc", "-1"} {
		label := "400 on limit=" + bad
		if resp := r.request(ctx, e, label, "GET", "/api/db/documents?limit="+bad, "", 400); resp != nil {
			e.errorBody(label, resp)
		}
	}
	t.done(ctx, n)
}

func compareItems(body []byte, rows int) error {
	v, err := decode(body)
	if err != nil {
		return fmt.Errorf("not JSON: %v (body %s)", err, clip(body))
	}
	arr, ok := v.([]any)
	if !ok {
		return fmt.Errorf("expected a JSON array, got %s", clip(body))
	}
	if len(arr) != rows {
		return fmt.Errorf("expected %d rows, got %d", rows, len(arr))
	}
	for i, row := range arr {
		if err := compareRow(row, ExpectedItem(i+1), ItemKeys); err != nil {
			return fmt.Errorf("row %d: %v", i, err)
		}
	}
	return nil
}

// compareRow checks one row object: exactly the columns as keys, each with the row's value
// and JSON type (a bigint column must be a number, not a string).
func compareRow(v any, want map[string]any, keys []string) error {
	m, ok := v.(map[string]any)
	if !ok {
		b, _ := json.Marshal(v)
		return fmt.Errorf("expected a JSON object, got %s", clip(b))
	}
	if err := sameKeys(m, keys); err != nil {
		return err
	}
	return expectFields(m, want)
}
