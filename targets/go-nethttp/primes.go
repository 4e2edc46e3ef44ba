package main

import (
	"encoding/json"
	"net/http"
)

const (
	defaultPrimesN = 1000000
	maxPrimesN     = 10000000
)

func cpuPrimes(w http.ResponseWriter, r *http.Request) {
	n, err := queryUint(r.URL.Query(), "n", defaultPrimesN)
	if err != nil || n < 2 || n > maxPrimesN {
		writeError(w, http.StatusBadRequest, "n must be an integer in 2..10000000")
		return
	}
	body, _ := json.Marshal(primesBelow(int(n)))
	writeJSON(w, http.StatusOK, body)
}

// primesBelow is seed 003's algorithm on purpose (trial division, no sieve), so the CPU
// cost per request is the seed's.
func primesBelow(n int) []int {
	primes := []int{} // non-nil: n == 2 must serialize as [] and not null
	for k := 2; k < n; k++ {
		if isPrime(k) {
			primes = append(primes, k)
		}
	}
	return primes
}

func isPrime(k int) bool {
	if k%2 == 0 {
		return k == 2
	}
	for d := 3; d*d <= k; d += 2 {
		if k%d == 0 {
			return false
		}
	}
	return true
}
