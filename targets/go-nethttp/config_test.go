package main

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLoadConfig(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

	cfg, err := loadConfig(env(nil))
	if err != nil || cfg.port != 8080 || cfg.workers != 1 || cfg.poolMin != 5 || cfg.poolMax != 15 || !cfg.prepared || cfg.host != "0.0.0.0" {
		t.Fatalf("defaults: %+v %v", cfg, err)
	}
	if cfg.extraCPU != 0 {
		t.Fatalf("EXTRA_CPU_MICROS must default to 0: %v", cfg.extraCPU)
	}
	cfg, err = loadConfig(env(map[string]string{"EXTRA_CPU_MICROS": "400"}))
	if err != nil || cfg.extraCPU != 400*time.Microsecond {
		t.Fatalf("EXTRA_CPU_MICROS: %+v %v", cfg, err)
	}
	cfg, err = loadConfig(env(map[string]string{"PORT": "9000", "WORKERS": "4", "DB_POOL_MIN": "1", "DB_POOL_MAX": "2", "DB_PREPARED": "off", "HOST": "127.0.0.1"}))
	if err != nil || cfg.host != "127.0.0.1" || cfg.port != 9000 || cfg.workers != 4 || cfg.poolMin != 1 || cfg.poolMax != 2 || cfg.prepared {
		t.Fatalf("explicit: %+v %v", cfg, err)
	}
	bad := []struct{ key, value, mention string }{
		{"PORT", "0", "PORT"},
		{"HOST", "localhost", "HOST"},
		{"HOST", "::1", "HOST"},
		{"PORT", "http", "PORT"},
		{"WORKERS", "0", "WORKERS"},
		{"DB_POOL_MAX", "0", "DB_POOL_MAX"},
		{"DB_POOL_MIN", "20", "greater than DB_POOL_MAX"},
		{"DB_PREPARED", "yes", "DB_PREPARED"},
		{"EXTRA_CPU_MICROS", "-5", "EXTRA_CPU_MICROS"},
		{"EXTRA_CPU_MICROS", "2s", "EXTRA_CPU_MICROS"},
		{"EXTRA_WAIT_MICROS", "x", "EXTRA_WAIT_MICROS"},
	}
	for _, b := range bad {
		if _, err := loadConfig(env(map[string]string{b.key: b.value})); err == nil || !strings.Contains(err.Error(), b.mention) {
			t.Errorf("%s=%s: error %v, want one mentioning %q", b.key, b.value, err, b.mention)
		}
	}
}

// The slowdown costs what it says in CPU time, and without it the handler is the router itself.
func TestExtraCPU(t *testing.T) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	if got := withExtraCPU(0, h); reflect.ValueOf(got).Pointer() != reflect.ValueOf(h).Pointer() {
		t.Fatal("EXTRA_CPU_MICROS=0 must not wrap the handler")
	}
	if got := withSerialWait(0, h); reflect.ValueOf(got).Pointer() != reflect.ValueOf(h).Pointer() {
		t.Fatal("EXTRA_WAIT_MICROS=0 must not wrap the handler")
	}
	before := threadCPU()
	start := time.Now()
	burnCPU(2 * time.Millisecond)
	used := threadCPU() - before
	if used < 2*time.Millisecond || used > 3*time.Millisecond {
		t.Fatalf("burnCPU(2ms) used %v of CPU (%v wall)", used, time.Since(start))
	}
}

// Requests under EXTRA_WAIT_MICROS take their wait one at a time: 8 concurrent requests of
// 5 ms take at least 40 ms.
func TestSerialWait(t *testing.T) {
	h := withSerialWait(5*time.Millisecond, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/ping", nil))
		}()
	}
	wg.Wait()
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Fatalf("8 requests of 5 ms took %v: not one at a time", d)
	}
}
