package verify

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeTarget follows the contract, except for the rules named in breaks: each unit test
// breaks one rule and expects exactly the matching checks to fail. Its rows come from
// ExpectedDocument/ExpectedItem; test/targets checks those against a real PostgreSQL.
type fakeTarget struct {
	breaks map[string]bool
	seq    atomic.Int64
}

func startFake(t *testing.T, breaks ...string) *httptest.Server {
	t.Helper()
	f := &fakeTarget{breaks: map[string]bool{}}
	for _, b := range breaks {
		f.breaks[b] = true
	}
	srv := httptest.NewServer(f.routes())
	t.Cleanup(srv.Close)
	return srv
}

func (f *fakeTarget) reply(w http.ResponseWriter, status int, body string) {
	if !f.breaks["no-server"] {
		w.Header().Set("Server", "fake")
	}
	if f.breaks["no-date"] {
		w.Header()["Date"] = nil // net/http then sends no Date
	}
	w.Header().Set("Content-Type", ContentType)
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

func (f *fakeTarget) fail(w http.ResponseWriter, status int, reason string) {
	if f.breaks["error-body-text"] {
		f.reply(w, status, reason)
		return
	}
	b, _ := json.Marshal(map[string]string{"error": reason})
	f.reply(w, status, string(b))
}

func (f *fakeTarget) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if f.breaks["ignore-connection-close"] && r.Close {
			holdConnection(w)
			return
		}
		if f.breaks["no-keepalive"] {
			w.Header().Set("Connection", "close")
		}
		body := HealthzBody
		if f.breaks["healthz-body"] {
			body = `{"status":"starting"}`
		}
		f.reply(w, 200, body)
	})
	mux.HandleFunc("GET /api/ping", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case f.breaks["content-type"]:
			w.Header().Set("Server", "fake")
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(PingBody))
		case f.breaks["no-framing"]:
			unframed(w, PingBody)
		case f.breaks["ping-body"]:
			f.reply(w, 200, `{"ok":true,"message":"ok"}`)
		case f.breaks["ping-newline"]:
			f.reply(w, 200, PingBody+"\n")
		default:
			f.reply(w, 200, PingBody)
		}
	})
	mux.HandleFunc("GET /api/time", func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().Unix()
		switch {
		case f.breaks["time-string"]:
			f.reply(w, 200, fmt.Sprintf(`{"serverTime":"%d"}`, now))
		case f.breaks["time-skew"]:
			f.reply(w, 200, fmt.Sprintf(`{"serverTime":%d}`, now-60))
		default:
			f.reply(w, 200, fmt.Sprintf(`{"serverTime":%d}`, now))
		}
	})
	mux.HandleFunc("GET /api/db/ping", func(w http.ResponseWriter, r *http.Request) {
		if f.breaks["db-ping-reserialized"] {
			f.reply(w, 200, PingBody)
			return
		}
		f.reply(w, 200, DBPingBody)
	})
	mux.HandleFunc("GET /api/db/time", func(w http.ResponseWriter, r *http.Request) {
		format := `{"serverTime" : %d}`
		if f.breaks["db-time-compact"] {
			format = `{"serverTime":%d}`
		}
		f.reply(w, 200, fmt.Sprintf(format, time.Now().Unix()))
	})
	mux.HandleFunc("GET /devices/status", func(w http.ResponseWriter, r *http.Request) {
		body := DevicesBody
		if f.breaks["devices-key-order"] {
			body = strings.Replace(body, `{"id":1,"type":"lightbulb","on":true}`, `{"type":"lightbulb","id":1,"on":true}`, 1)
		}
		f.reply(w, 200, body)
	})
	mux.HandleFunc("POST /devices/{id}/command", f.command)
	mux.HandleFunc("GET /events/live", f.events)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := fmt.Sprintf("req-%d", f.seq.Add(1))
		if f.breaks["health-same-id"] {
			id = "req-1"
		}
		w.Header().Set("X-Request-ID", id)
		if !f.breaks["health-no-response-time"] {
			w.Header().Set("X-Response-Time", fmt.Sprintf("%.2fms", float64(time.Since(start).Microseconds())/1000))
		}
		f.reply(w, 200, fmt.Sprintf(`{"status":"ok","timestamp":%d,"framework":"fake"}`, time.Now().UnixMilli()))
	})
	mux.HandleFunc("GET /api/db/document/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		if err != nil || id < 1 {
			f.fail(w, 400, "id must be a positive integer")
			return
		}
		if id > DocumentCount && !f.breaks["document-missing-200"] {
			f.fail(w, 404, "no such document")
			return
		}
		row := ExpectedDocument(id)
		if f.breaks["document-bigint-string"] {
			row["created_at"] = fmt.Sprint(row["created_at"])
		}
		b, _ := json.Marshal(row)
		f.reply(w, 200, string(b))
	})
	mux.HandleFunc("GET /api/db/documents", func(w http.ResponseWriter, r *http.Request) {
		limit := 10
		if f.breaks["documents-default-5"] {
			limit = 5
		}
		if s := r.URL.Query().Get("limit"); s != "" {
			n, err := strconv.Atoi(s)
			max := 100
			if f.breaks["documents-unbounded"] {
				max = ItemCount
			}
			if err != nil || n < 1 || n > max {
				f.fail(w, 400, "limit must be an integer in 1..100")
				return
			}
			limit = n
		}
		rows := make([]map[string]any, 0, limit)
		for i := 1; i <= limit; i++ {
			rows = append(rows, ExpectedItem(i))
		}
		b, _ := json.Marshal(rows)
		f.reply(w, 200, string(b))
	})
	mux.HandleFunc("GET /api/cpu/primes", func(w http.ResponseWriter, r *http.Request) {
		n := 1000000
		if s := r.URL.Query().Get("n"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 2 || v > 10000000 {
				f.fail(w, 400, "n must be an integer in 2..10000000")
				return
			}
			n = v
		}
		primes := trialDivision(n)
		if f.breaks["primes-include-1"] {
			primes = append([]int{1}, primes...)
		}
		sep := ","
		if f.breaks["primes-spaces"] {
			sep = ", "
		}
		parts := make([]string, len(primes))
		for i, p := range primes {
			parts[i] = strconv.Itoa(p)
		}
		f.reply(w, 200, "["+strings.Join(parts, sep)+"]")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if f.breaks["not-found-200"] {
			f.reply(w, 200, "{}")
			return
		}
		f.fail(w, 404, "not found")
	})
	return mux
}

func (f *fakeTarget) command(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 {
		if f.breaks["command-bad-id-404"] {
			f.fail(w, 404, "not found")
			return
		}
		f.fail(w, 400, "id must be a positive integer")
		return
	}
	var cmd map[string]any
	if err := json.NewDecoder(r.Body).Decode(&cmd); err != nil && !f.breaks["command-accepts-bad-json"] {
		f.fail(w, 400, "malformed JSON")
		return
	}
	action, ok := cmd["action"].(string)
	if (!ok || action == "") && !f.breaks["command-accepts-bad-json"] {
		f.fail(w, 400, "action must be a non-empty string")
		return
	}
	if v, has := cmd["value"]; has {
		if _, isNum := v.(float64); !isNum {
			f.fail(w, 400, "value must be a number")
			return
		}
	}
	if !f.breaks["command-no-latency"] {
		time.Sleep(f.timer(2 * time.Millisecond))
	}
	b, _ := json.Marshal(map[string]any{"deviceId": id, "action": action, "status": "accepted", "latencyMs": 2})
	f.reply(w, 200, string(b))
}

func (f *fakeTarget) events(w http.ResponseWriter, r *http.Request) {
	wait := 0
	if s := r.URL.Query().Get("wait"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			f.fail(w, 400, "wait must be a non-negative integer")
			return
		}
		wait = v
	}
	limit := 500
	if f.breaks["events-no-cap"] {
		limit = 2000 // honouring 5000 in full would only make the test slower
	}
	if !f.breaks["events-ignore-wait"] {
		time.Sleep(f.timer(time.Duration(min(wait, limit)) * time.Millisecond))
	}
	f.reply(w, 200, fmt.Sprintf(`{"event":"motion","deviceId":5,"ts":%d}`, time.Now().UnixMilli()))
}

// timer is how long the fake holds a wait of d: d, or with "timers-early" as a libuv loop
// may (its millisecond clock cached at the iteration's start): up to 1 ms short, and 1%.
func (f *fakeTarget) timer(d time.Duration) time.Duration {
	if f.breaks["timers-early"] {
		return d - min(700*time.Microsecond, d/2) - d/100
	}
	return d
}

// unframed answers over the raw connection with no Content-Length and no chunking: the body
// ends when the connection closes (HTTP/1.0 style).
func unframed(w http.ResponseWriter, body string) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nDate: %s\r\nServer: fake\r\nConnection: close\r\n\r\n%s",
		ContentType, time.Now().UTC().Format(http.TimeFormat), body)
	_ = buf.Flush()
}

// holdConnection answers but keeps the connection open, ignoring Connection: close.
func holdConnection(w http.ResponseWriter) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\nDate: %s\r\nServer: fake\r\n\r\n%s",
		ContentType, len(HealthzBody), time.Now().UTC().Format(http.TimeFormat), HealthzBody)
	_ = buf.Flush()
	go func() {
		time.Sleep(10 * time.Second) // longer than the verifier waits
		conn.Close()
	}()
}

// trialDivision is the contract's algorithm, as a target would write it.
func trialDivision(n int) []int {
	out := []int{}
	for k := 2; k < n; k++ {
		prime := k == 2 || k%2 != 0
		for d := 3; prime && d <= int(math.Sqrt(float64(k))); d += 2 {
			prime = k%d != 0
		}
		if prime {
			out = append(out, k)
		}
	}
	return out
}
