// Package verify checks a running target against targets/CONTRACT.md, the way TechEmpower's
// verification step does before anything is timed: a target that answers wrongly is reported,
// never measured. It knows nothing of Kubernetes or of processes: it only needs a base URL.
package verify

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// Options says what to verify.
type Options struct {
	// BaseURL of the target, e.g. http://127.0.0.1:8080.
	BaseURL string
	// Endpoints to check; empty means every endpoint of the contract.
	Endpoints []preset.Endpoint
	// AdminDSN, optional, is a direct PostgreSQL DSN (not through a pooler) allowed to read
	// pg_stat_statements: with it, DB endpoints must really run their statement.
	AdminDSN string
	// Timeout per request (default 10 s); the default-N primes request gets 12 times as long,
	// since CPython's trial division takes seconds.
	Timeout time.Duration
	// NoKeepAlive: the target declares it closes every connection (target.yaml keepAlive:
	// false); the keep-alive check then holds it to that declaration instead.
	NoKeepAlive bool
	// Client overrides the HTTP client (default: a keep-alive client of its own, with bounded
	// headers). Redirects are never followed, whatever the client says.
	Client *http.Client
	// ReachWithin is how long the target's address may refuse or fail to route connections
	// before the checks run (0: no wait). In a cluster a Service answers "no route to host"
	// until the node's proxy has programmed the endpoint of a pod that is already Ready.
	// A target that is never reached still fails every check, after this long.
	ReachWithin time.Duration
}

// run is one verification in progress.
type run struct {
	base        string
	timeout     time.Duration
	noKeepAlive bool
	client      *http.Client
	stats       *statCounter // nil without AdminDSN
	dbErr       error        // why stats is nil although AdminDSN was given
	admin       string       // AdminDSN with the password masked, for details
}

// checker verifies one endpoint.
type checker func(ctx context.Context, r *run, e *endpoint)

var checkers = map[preset.Endpoint]checker{
	preset.Ping:           checkPing,
	preset.Time:           checkTime,
	preset.DBPing:         checkDBPing,
	preset.DBTime:         checkDBTime,
	preset.DevicesStatus:  checkDevicesStatus,
	preset.DevicesCommand: checkDevicesCommand,
	preset.EventsLive:     checkEventsLive,
	preset.Health:         checkHealth,
	preset.DBDocument:     checkDBDocument,
	preset.DBDocuments:    checkDBDocuments,
	preset.CPUPrimes:      checkCPUPrimes,
}

// Verify checks every requested endpoint plus the rules every target follows (/healthz, 404 on
// an unknown path, keep-alive and Connection: close). A bad option is an error; a failing
// target is a Report whose Passed is false.
func Verify(ctx context.Context, opts Options) (Report, error) {
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Report{}, fmt.Errorf("base URL %q: want http://HOST:PORT", opts.BaseURL)
	}
	endpoints := opts.Endpoints
	if len(endpoints) == 0 {
		endpoints = preset.AllEndpoints()
	}
	for _, e := range endpoints {
		if _, err := preset.ParseEndpoint(string(e)); err != nil {
			return Report{}, err
		}
	}
	r := &run{base: strings.TrimSuffix(opts.BaseURL, "/"), timeout: opts.Timeout, client: opts.Client, noKeepAlive: opts.NoKeepAlive}
	if r.timeout <= 0 {
		r.timeout = 10 * time.Second
	}
	if r.client == nil {
		client, tr := newClient()
		r.client = client
		defer tr.CloseIdleConnections()
	} else {
		c := *r.client
		c.CheckRedirect = refuseRedirect
		r.client = &c
	}
	if opts.AdminDSN != "" {
		r.admin = RedactDSN(opts.AdminDSN)
		r.stats, r.dbErr = newStatCounter(ctx, opts.AdminDSN)
		if r.stats != nil {
			defer r.stats.close()
		}
	}

	awaitReachable(ctx, u, opts.ReachWithin)
	report := Report{BaseURL: opts.BaseURL}
	add := func(name string, check checker) {
		e := &endpoint{report: &EndpointReport{Endpoint: name}}
		check(ctx, r, e)
		report.Endpoints = append(report.Endpoints, *e.report)
	}
	add("healthz", checkHealthz)
	add("not-found", checkNotFound)
	add("connection", checkConnection)
	for _, key := range endpoints {
		add(string(key), checkers[key])
	}
	return report, nil
}

// awaitReachable returns once a TCP connection to the URL's host is accepted, or after
// within (or the context's end): the checks then report whatever the target does.
func awaitReachable(ctx context.Context, u *url.URL, within time.Duration) {
	if within <= 0 {
		return
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	var d net.Dialer
	_ = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, within, true, func(ctx context.Context) (bool, error) {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return false, nil
		}
		_ = c.Close()
		return true, nil
	})
}
