package verify

import (
	"context"
	"encoding/json"
	"fmt"
)

// The contract's figures for the default N (1,000,000).
const (
	DefaultPrimeCount = 78498
	DefaultPrimeBytes = 538469
)

func checkCPUPrimes(ctx context.Context, r *run, e *endpoint) {
	for _, c := range []struct {
		query string
		n     int
	}{{"?n=30", 30}, {"?n=2", 2}, {"", 1000000}} {
		path := "/api/cpu/primes" + c.query
		label := "GET " + path
		// The default N costs seconds of CPU in slow runtimes; that is the workload, not a fault.
		resp := r.requestTimeout(ctx, e, label, "GET", path, "", 200, 12*r.timeout)
		if resp == nil {
			continue
		}
		var got []int64
		err := json.Unmarshal(resp.body, &got)
		if err != nil {
			e.add(label+": primes", false, resp.latency, "expected a JSON array of integers: %v (body %s)", err, clip(resp.body))
			continue
		}
		if got == nil {
			e.add(label+": primes", false, resp.latency, "expected an array, got null")
			continue
		}
		want := PrimesBelow(c.n)
		if c.query == "" {
			e.add(label+": count", len(got) == DefaultPrimeCount, resp.latency, "expected %d primes, got %d", DefaultPrimeCount, len(got))
			size := len(trimmed(resp.body))
			e.add(label+": size", size == DefaultPrimeBytes, resp.latency, "expected %d bytes (compact JSON), got %d", DefaultPrimeBytes, size)
		}
		e.add(label+": primes", samePrimes(got, want) == "", resp.latency, "expected every prime below %d: %s", c.n, orOK(samePrimes(got, want)))
	}
	for _, bad := range []string{"1", "10000001", "abc"} {
		label := "400 on n=" + bad
		if resp := r.request(ctx, e, label, "GET", "/api/cpu/primes?n="+bad, "", 400); resp != nil {
			e.errorBody(label, resp)
		}
	}
}

// samePrimes describes the first difference, or returns "".
func samePrimes(got []int64, want []int) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != int64(want[i]) {
			return fmt.Sprintf("element %d is %d, expected %d", i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d elements, expected %d", len(got), len(want))
	}
	return ""
}

func orOK(s string) string {
	if s == "" {
		return "ok"
	}
	return s
}
