package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// healthResponse is seed 004's health body.
type healthResponse struct {
	Status    string `json:"status"`
	Timestamp int64  `json:"timestamp"`
	Framework string `json:"framework"`
}

func health(w http.ResponseWriter, _ *http.Request) {
	body, _ := json.Marshal(healthResponse{Status: "ok", Timestamp: time.Now().UnixMilli(), Framework: "net/http"})
	writeJSON(w, http.StatusOK, body)
}

// Request IDs are a random per-process prefix plus a counter: unique across processes and
// restarts without a random read per request.
var (
	requestIDPrefix = newRequestIDPrefix()
	requestCounter  atomic.Uint64
)

func newRequestIDPrefix() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux (Go 1.24+)
	return "req-" + hex.EncodeToString(b) + "-"
}

// withRequestTiming is seed 004's middleware: X-Request-ID, and X-Response-Time measured
// up to the moment the headers leave (as Express's response-time does).
func withRequestTiming(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &timedWriter{ResponseWriter: w, start: time.Now()}
		w.Header().Set("X-Request-ID", requestIDPrefix+strconv.FormatUint(requestCounter.Add(1), 10))
		next.ServeHTTP(tw, r)
	})
}

// timedWriter stamps X-Response-Time just before the status line is written.
type timedWriter struct {
	http.ResponseWriter
	start       time.Time
	wroteHeader bool
}

func (t *timedWriter) WriteHeader(status int) {
	if !t.wroteHeader {
		t.wroteHeader = true
		ms := float64(time.Since(t.start).Nanoseconds()) / 1e6
		t.Header().Set("X-Response-Time", strconv.FormatFloat(ms, 'f', 2, 64)+"ms")
	}
	t.ResponseWriter.WriteHeader(status)
}

func (t *timedWriter) Write(b []byte) (int, error) {
	if !t.wroteHeader {
		t.WriteHeader(http.StatusOK)
	}
	return t.ResponseWriter.Write(b)
}
