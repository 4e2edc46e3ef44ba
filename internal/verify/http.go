package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// ContentType is the exact Content-Type every response must carry.
const ContentType = "application/json; charset=utf-8"

// Limits on what a target may send back. A target is someone else's code: without a limit an
// endless body or endless headers would take the operator's memory, and as nothing would be
// recorded, every restart would verify again.
const (
	// MaxBodyBytes bounds every body but cpu-primes': the largest other answer of the contract
	// is db-documents?limit=100, about 12 KB.
	MaxBodyBytes = 64 << 10
	// MaxPrimesBodyBytes bounds cpu-primes' body: 538,469 bytes for the default N, so twice that.
	MaxPrimesBodyBytes = 1 << 20
	// MaxHeaderBytes bounds a response's status line and headers (net/http's own default is 1 MiB).
	MaxHeaderBytes = 64 << 10
	// MaxDetailBytes bounds a check's detail, which quotes what the target sent.
	MaxDetailBytes = 400
)

// bodyLimit is the most bytes read from the body of a response to path.
func bodyLimit(path string) int64 {
	if strings.HasPrefix(path, "/api/cpu/primes") {
		return MaxPrimesBodyBytes
	}
	return MaxBodyBytes
}

// newClient is the verifier's own client: bounded headers, no proxy, and redirects returned
// as they are, never followed (a target must not point the operator at another address).
func newClient() (*http.Client, *http.Transport) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // the target is local or in-cluster; never go through a proxy
	tr.MaxResponseHeaderBytes = MaxHeaderBytes
	return &http.Client{Transport: tr, CheckRedirect: refuseRedirect}, tr
}

// refuseRedirect makes the client hand back the 3xx itself.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// readBody reads at most limit bytes of a body; more is an error, and the rest is never read.
func readBody(body io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("body larger than %d bytes, the most this endpoint's contract answer needs; the rest was not read", limit)
	}
	return data, nil
}

// response is what one request returned.
type response struct {
	status  int
	header  http.Header
	body    []byte
	latency time.Duration
	// framing is how the body length was given: "content-length", "chunked" or "".
	framing string
}

// fetch sends one request. The latency runs from sending to the last byte of the body.
func (r *run) fetch(ctx context.Context, method, path, body string, timeout time.Duration) (*response, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := readBody(resp.Body, bodyLimit(path))
	latency := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	out := &response{status: resp.StatusCode, header: resp.Header, body: data, latency: latency}
	switch {
	case len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked":
		out.framing = "chunked"
	case resp.ContentLength >= 0 && resp.Header.Get("Content-Length") != "":
		out.framing = "content-length"
	}
	return out, nil
}

// endpoint collects the checks of one endpoint.
type endpoint struct {
	report *EndpointReport
}

func (e *endpoint) add(name string, pass bool, latency time.Duration, format string, args ...any) {
	detail := format
	if len(args) > 0 {
		detail = fmt.Sprintf(format, args...)
	}
	e.report.Checks = append(e.report.Checks, Check{Name: name, Pass: pass, Detail: Shorten(detail, MaxDetailBytes), Latency: latency})
}

func (e *endpoint) skip(name, why string) {
	e.report.Checks = append(e.report.Checks, Check{Name: name, Skipped: true, Detail: Shorten(why, MaxDetailBytes)})
}

// Shorten cuts s to at most max bytes, on a UTF-8 boundary, saying how long it was.
func Shorten(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	note := fmt.Sprintf("... (%d bytes)", len(s))
	cut := limit - len(note)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:max(cut, 0)] + note
}

// request sends a request and checks the common rules: status, Content-Type, framing, Date
// and Server. label names the request in every check ("GET /api/ping"). It returns nil when
// the request failed or the status was wrong, so callers skip the body checks.
func (r *run) request(ctx context.Context, e *endpoint, label, method, path, body string, wantStatus int) *response {
	return r.requestTimeout(ctx, e, label, method, path, body, wantStatus, r.timeout)
}

func (r *run) requestTimeout(ctx context.Context, e *endpoint, label, method, path, body string, wantStatus int, timeout time.Duration) *response {
	resp, err := r.fetch(ctx, method, path, body, timeout)
	if err != nil {
		e.add(label+": request", false, 0, "%s %s: %v", method, path, err)
		return nil
	}
	ok := resp.status == wantStatus
	e.add(label+": status", ok, resp.latency, "expected %d, got %d%s", wantStatus, resp.status, bodyHint(resp, ok))
	ct := resp.header.Get("Content-Type")
	e.add(label+": content-type", ct == ContentType && len(resp.header.Values("Content-Type")) == 1, resp.latency,
		"expected %q, got %q", ContentType, strings.Join(resp.header.Values("Content-Type"), ", "))
	e.add(label+": framing", resp.framing != "", resp.latency, "Content-Length or chunked expected, got %s", orNone(resp.framing))
	date := resp.header.Get("Date")
	_, dateErr := http.ParseTime(date)
	e.add(label+": date header", date != "" && dateErr == nil, resp.latency, "got %q", date)
	server := resp.header.Get("Server")
	e.add(label+": server header", server != "", resp.latency, "got %q", server)
	if !ok {
		return nil
	}
	return resp
}

func bodyHint(resp *response, ok bool) string {
	if ok {
		return ""
	}
	if resp.status >= 300 && resp.status < 400 {
		return fmt.Sprintf(" (a redirect to %s, not followed: the contract answers directly)", clip([]byte(resp.header.Get("Location"))))
	}
	return " (body " + clip(resp.body) + ")"
}

func orNone(s string) string {
	if s == "" {
		return "neither"
	}
	return s
}

// clip quotes a body for a detail message, shortened when long.
func clip(b []byte) string {
	const max = 160
	if len(b) > max {
		return fmt.Sprintf("%q... (%d bytes)", b[:max], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// trimmed drops one trailing newline, which some frameworks append to every JSON body
// (JSON whitespace, so tolerated), but nothing else.
func trimmed(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// exactBody checks a body fixed byte for byte by the contract.
func (e *endpoint) exactBody(name string, resp *response, want string) {
	got := trimmed(resp.body)
	e.add(name, string(got) == want, resp.latency, "expected %q, got %s", want, clip(resp.body))
}

// decode parses JSON keeping numbers exact.
func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// object decodes a JSON object whose keys must be exactly keys.
func object(b []byte, keys ...string) (map[string]any, error) {
	v, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v (body %s)", err, clip(b))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %s", clip(b))
	}
	if err := sameKeys(m, keys); err != nil {
		return nil, err
	}
	return m, nil
}

func sameKeys(m map[string]any, keys []string) error {
	var missing, extra []string
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
		if _, ok := m[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range m {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	if len(missing)+len(extra) > 0 {
		return fmt.Errorf("keys: expected %v, missing %v, unexpected %v", keys, missing, extra)
	}
	return nil
}

// integer reads a JSON integer value.
func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// describe renders a decoded JSON value with its type, for details.
func describe(v any) string {
	switch x := v.(type) {
	case json.Number:
		return "number " + x.String()
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("bool %v", x)
	case nil:
		return "null"
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// errorBody checks a 400/404 body: {"error":"<non-empty reason>"}.
func (e *endpoint) errorBody(label string, resp *response) {
	m, err := object(resp.body, "error")
	if err == nil {
		if s, ok := m["error"].(string); !ok || s == "" {
			err = fmt.Errorf(`"error" must be a non-empty string, got %s`, describe(m["error"]))
		}
	}
	e.add(label+": error body", err == nil, resp.latency, "expected {\"error\":\"<reason>\"}: %v", errText(err))
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}
