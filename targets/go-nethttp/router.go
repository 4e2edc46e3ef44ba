package main

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	jsonType   = "application/json; charset=utf-8"
	serverName = "go-nethttp"
)

// newRouter maps the contract's endpoints; pool may be nil (no DATABASE_URL).
func newRouter(pool *pgxpool.Pool) http.Handler {
	db := &dbHandlers{pool: pool}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/ping", ping)
	mux.HandleFunc("GET /api/time", serverTime)
	mux.HandleFunc("GET /devices/status", devicesStatus)
	mux.HandleFunc("POST /devices/{id}/command", deviceCommand)
	mux.HandleFunc("GET /events/live", eventsLive)
	mux.Handle("GET /health", withRequestTiming(http.HandlerFunc(health)))
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /api/cpu/primes", cpuPrimes)
	mux.HandleFunc("GET /api/db/ping", db.ping)
	mux.HandleFunc("GET /api/db/time", db.time)
	mux.HandleFunc("GET /api/db/document/{id}", db.document)
	mux.HandleFunc("GET /api/db/documents", db.documents)
	mux.HandleFunc("/", notFound)
	return withServerHeader(mux)
}

// withServerHeader adds the Server header the contract requires (net/http sets Date itself).
func withServerHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", serverName)
		next.ServeHTTP(w, r)
	})
}

// writeJSON sends a complete JSON body with an explicit Content-Length, so large bodies
// (primes, documents) are not chunked.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", jsonType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body) // a write error means the client left; nothing to do
}

// writeError answers {"error":"<reason>"}.
func writeError(w http.ResponseWriter, status int, reason string) {
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{reason})
	writeJSON(w, status, body)
}

func notFound(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusNotFound, []byte(`{"error":"not found"}`))
}
