package wireagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/hoststeal"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

// Running is a capture in progress.
type Running interface {
	Stop() (wire.EndpointResult, error)
}

// Capturer starts captures: wire.StartEndpoint on a node; canned results in tests.
type Capturer func(ep wire.Endpoint) (Running, error)

// NodeCapturer captures on every interface of the node the agent runs on.
func NodeCapturer(ep wire.Endpoint) (Running, error) { return wire.StartEndpoint(ep, "") }

// Server is the agent's HTTP API (served over TLS, cmd/gauntlet). Every request but
// /healthz must carry a bearer token Auth accepts: the manager's service-account token
// (TokenReviewer). Without Auth every request is refused.
type Server struct {
	Capture Capturer
	Auth    Authenticator
	// Steal samples the node's CPUs at a capture's start and stop (hoststeal.Read of every
	// CPU when nil): the hypervisor's share of them over the trial.
	Steal func() (hoststeal.Sample, error)

	mu       sync.Mutex
	running  map[string]*entry
	finished map[string]Figures
	order    []string // finished IDs, oldest first
	kept     int      // bytes of the finished results (Figures.size)
}

type entry struct {
	run    Running
	timer  *time.Timer
	tenant string
	steal  hoststeal.Sample // at the start; none when it could not be read
}

// stealNow samples the node's CPUs; a sample with no CPUs when it cannot.
func (s *Server) stealNow() hoststeal.Sample {
	read := s.Steal
	if read == nil {
		read = func() (hoststeal.Sample, error) { return hoststeal.Read(nil) }
	}
	v, err := read()
	if err != nil {
		return hoststeal.Sample{}
	}
	return v
}

// Handler serves POST /v1/captures (start), POST /v1/captures/{id}/stop,
// GET /v1/captures/{id} and POST /v1/stop (every capture under a prefix).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/captures", s.start)
	mux.HandleFunc("POST /v1/captures/{id}/stop", s.stop)
	mux.HandleFunc("GET /v1/captures/{id}", s.get)
	mux.HandleFunc("POST /v1/stop", s.stopPrefix)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			if err := s.authorize(r); err != nil {
				status := http.StatusUnauthorized
				var ae *AuthError
				if errors.As(err, &ae) {
					status = ae.Status
				}
				http.Error(w, err.Error(), status)
				return
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) authorize(r *http.Request) error {
	if s.Auth == nil {
		return &AuthError{http.StatusServiceUnavailable, "the agent has no authenticator: every request is refused"}
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		token = ""
	}
	return s.Auth.Authenticate(r.Context(), strings.TrimSpace(token))
}

func (s *Server) init() {
	if s.running == nil {
		s.running, s.finished = map[string]*entry{}, map[string]Figures{}
	}
}

// validate checks a start request, naming the bad field.
func validate(q StartRequest) (wire.Endpoint, error) {
	if q.ID == "" || len(q.ID) > 253 {
		return wire.Endpoint{}, errors.New("id: want 1 to 253 characters")
	}
	addr, err := netip.ParseAddr(q.PodIP)
	if err != nil || !addr.Is4() {
		return wire.Endpoint{}, fmt.Errorf("podIP %q: want an IPv4 address", q.PodIP)
	}
	if q.Port <= 0 || q.Port > 65535 {
		return wire.Endpoint{}, fmt.Errorf("port %d: want 1 to 65535", q.Port)
	}
	if q.Seconds <= 0 || q.Seconds > MaxSeconds {
		return wire.Endpoint{}, fmt.Errorf("seconds %d: want 1 to %d", q.Seconds, MaxSeconds)
	}
	if len(q.Tenant) > 63 {
		return wire.Endpoint{}, errors.New("tenant: want at most 63 characters")
	}
	return wire.Endpoint{Addr: addr, Port: uint16(q.Port)}, nil
}

func (s *Server) start(w http.ResponseWriter, r *http.Request) {
	var q StartRequest
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	ep, err := validate(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	if _, ok := s.running[q.ID]; ok {
		writeJSON(w, http.StatusOK, Figures{ID: q.ID, State: StateRunning})
		return
	}
	if f, ok := s.finished[q.ID]; ok {
		writeJSON(w, http.StatusOK, f)
		return
	}
	if len(s.running) >= MaxRunning {
		http.Error(w, fmt.Sprintf("%d captures already running", MaxRunning), http.StatusTooManyRequests)
		return
	}
	mine := 0
	for _, e := range s.running {
		if e.tenant == q.Tenant {
			mine++
		}
	}
	if mine >= MaxPerTenant {
		http.Error(w, fmt.Sprintf("tenant %q already has %d captures running on this node (at most %d of %d)", q.Tenant, mine, MaxPerTenant, MaxRunning),
			http.StatusTooManyRequests)
		return
	}
	run, err := s.Capture(ep)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	e := &entry{run: run, tenant: q.Tenant, steal: s.stealNow()}
	e.timer = time.AfterFunc(time.Duration(q.Seconds)*time.Second, func() { s.finish(q.ID) })
	s.running[q.ID] = e
	writeJSON(w, http.StatusCreated, Figures{ID: q.ID, State: StateRunning})
}

// finish stops a running capture and keeps its figures; the oldest kept go first.
func (s *Server) finish(id string) (Figures, bool) {
	s.mu.Lock()
	s.init()
	e, ok := s.running[id]
	if !ok {
		f, done := s.finished[id]
		s.mu.Unlock()
		return f, done
	}
	delete(s.running, id)
	s.mu.Unlock()
	e.timer.Stop()
	res, err := e.run.Stop()
	f := figuresOf(id, res, err)
	if taken, ok := hoststeal.Window(e.steal, s.stealNow()); ok {
		f.StealMillicores, f.CPUs = taken.Millicores, taken.CPUs
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished[id] = f
	s.order = append(s.order, id)
	s.kept += f.size()
	for len(s.order) > 1 && (len(s.order) > KeepResults || s.kept > KeepBytes) {
		s.kept -= s.finished[s.order[0]].size()
		delete(s.finished, s.order[0])
		s.order = s.order[1:]
	}
	return f, true
}

// stopPrefix stops the running captures under a prefix: the operator's word that a trial
// or a run ended without reading them (a failed trial, a deleted run), so that they free
// their slots now rather than when they stop themselves.
func (s *Server) stopPrefix(w http.ResponseWriter, r *http.Request) {
	var q StopRequest
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if q.Prefix == "" || !strings.HasSuffix(q.Prefix, "/") || len(q.Prefix) > 253 {
		http.Error(w, fmt.Sprintf("prefix %q: want 1 to 253 characters ending in /", q.Prefix), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.init()
	var ids []string
	for id := range s.running {
		if strings.HasPrefix(id, q.Prefix) {
			ids = append(ids, id)
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.finish(id)
	}
	writeJSON(w, http.StatusOK, Stopped{Stopped: len(ids)})
}

func (s *Server) stop(w http.ResponseWriter, r *http.Request) {
	f, ok := s.finish(r.PathValue("id"))
	if !ok {
		http.Error(w, "no capture "+r.PathValue("id")+" (never started here, or the agent restarted)", http.StatusNotFound)
		return
	}
	writeJSON(w, http.StatusOK, f)
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	if _, ok := s.running[id]; ok {
		writeJSON(w, http.StatusOK, Figures{ID: id, State: StateRunning})
		return
	}
	if f, ok := s.finished[id]; ok {
		writeJSON(w, http.StatusOK, f)
		return
	}
	http.Error(w, "no capture "+id, http.StatusNotFound)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
