package workload

import (
	"fmt"
	"net/http"
	"strings"
)

// IDPlaceholder in a request path is replaced, per iteration, by an integer of the
// request's IDRange (see IDRange.At).
const IDPlaceholder = "{id}"

// DefaultIDRange applies to a path with {id} and no explicit range: the 10,000 rows of
// targets/schema.sql's documents table.
var DefaultIDRange = IDRange{Min: 1, Max: 10000}

// maxIDSpan keeps the JavaScript arithmetic of the same rule below 2^53 (exact).
const maxIDSpan = 10_000_000

// Request is one kind of request in a weighted mix.
type Request struct {
	Method string `json:"method"`
	// Path starts with "/", may carry a query and the {id} placeholder.
	Path string `json:"path"`
	// Body is sent as application/json (every contract endpoint speaks JSON).
	Body string `json:"body,omitempty"`
	// Weight is this request's share of the mix, relative to the others.
	Weight int `json:"weight"`
	// ExpectStatus is the status a correct target answers; anything else is an error.
	ExpectStatus int `json:"expectStatus"`
	// IDs is where {id} takes its values; nil means DefaultIDRange.
	IDs *IDRange `json:"ids,omitempty"`
}

// IDRange is an inclusive range of positive integers.
type IDRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Span is the number of integers in the range.
func (r IDRange) Span() int { return r.Max - r.Min + 1 }

// At is the {id} of the given iteration: Min + (iteration × stride mod span), with a
// stride coprime to the span. So every id is visited once per span iterations, in an
// order that is not sequential (neighbouring rows would share cache lines and pages), and
// every target gets the same sequence. loadgen/bench.js computes the same formula.
func (r IDRange) At(iteration int64) int {
	span := int64(r.Span())
	return r.Min + int((iteration%span)*int64(SpreadStride(int(span)))%span)
}

// SpreadStride is the integer coprime to n nearest to n/φ (the lower one on a tie):
// iteration × stride mod n then walks through 0..n-1, each once, evenly spread
// (golden-ratio hashing).
func SpreadStride(n int) int {
	if n <= 2 {
		return 1
	}
	lo := n * 618 / 1000 // floor(0.618 n)
	hi := lo + 1
	// Walk outwards from 0.618 n; the nearer candidate wins, the lower on a tie. 1 is
	// coprime to everything, so the walk ends.
	for {
		dl, dh := n*618-lo*1000, hi*1000-n*618
		if lo >= 1 && dl <= dh {
			if gcd(lo, n) == 1 {
				return lo
			}
			lo--
			continue
		}
		if hi < n && gcd(hi, n) == 1 {
			return hi
		}
		hi++
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

var allowedMethods = map[string]bool{
	http.MethodGet: true, http.MethodPost: true, http.MethodPut: true, http.MethodPatch: true,
	http.MethodDelete: true, http.MethodHead: true, http.MethodOptions: true,
}

// Validate checks one request; field names the request in errors (e.g. "requests[2]").
func (r Request) Validate(field string) error {
	if !allowedMethods[r.Method] {
		return fmt.Errorf("%s.method: %q is not one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS", field, r.Method)
	}
	if !strings.HasPrefix(r.Path, "/") {
		return fmt.Errorf("%s.path: %q must start with \"/\"", field, r.Path)
	}
	if strings.ContainsAny(r.Path, " \t\r\n#") {
		return fmt.Errorf("%s.path: %q must not contain spaces, control characters or a fragment", field, r.Path)
	}
	rest := strings.ReplaceAll(r.Path, IDPlaceholder, "")
	if strings.ContainsAny(rest, "{}") {
		return fmt.Errorf("%s.path: %q has a placeholder other than %s", field, r.Path, IDPlaceholder)
	}
	if r.Body != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		return fmt.Errorf("%s.body: a %s request cannot carry a body", field, r.Method)
	}
	if r.Weight <= 0 {
		return fmt.Errorf("%s.weight: must be an integer > 0, got %d", field, r.Weight)
	}
	if r.ExpectStatus < 100 || r.ExpectStatus > 599 {
		return fmt.Errorf("%s.expectStatus: must be an HTTP status 100..599, got %d", field, r.ExpectStatus)
	}
	if r.IDs != nil {
		if !strings.Contains(r.Path, IDPlaceholder) {
			return fmt.Errorf("%s.ids: set, but path %q has no %s", field, r.Path, IDPlaceholder)
		}
		if r.IDs.Min < 1 || r.IDs.Max < r.IDs.Min {
			return fmt.Errorf("%s.ids: need 1 <= min <= max, got %d..%d", field, r.IDs.Min, r.IDs.Max)
		}
		if r.IDs.Span() > maxIDSpan {
			return fmt.Errorf("%s.ids: at most %d ids, got %d", field, maxIDSpan, r.IDs.Span())
		}
	}
	return nil
}

// idRange is the range {id} expands over (the default when none is set).
func (r Request) idRange() IDRange {
	if r.IDs != nil {
		return *r.IDs
	}
	return DefaultIDRange
}

// ExpandPath is the path of the given iteration: every {id} becomes IDRange.At(iteration).
func (r Request) ExpandPath(iteration int64) string {
	if !strings.Contains(r.Path, IDPlaceholder) {
		return r.Path
	}
	return strings.ReplaceAll(r.Path, IDPlaceholder, fmt.Sprint(r.idRange().At(iteration)))
}

// ValidateRequests checks a whole mix; field names the list (e.g. "spec.scenarios[0].requests").
func ValidateRequests(field string, reqs []Request) error {
	if len(reqs) == 0 {
		return fmt.Errorf("%s: at least one request is needed", field)
	}
	total := 0
	for i, r := range reqs {
		if err := r.Validate(fmt.Sprintf("%s[%d]", field, i)); err != nil {
			return err
		}
		total += r.Weight
		if total > 1_000_000 {
			return fmt.Errorf("%s[%d].weight: the weights add up to more than 1000000", field, i)
		}
	}
	return nil
}
