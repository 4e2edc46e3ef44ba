package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// config is the contract's environment (targets/CONTRACT.md, "Configuration").
type config struct {
	host        string // listen address: 127.0.0.1 in the local mode, 0.0.0.0 by default
	port        int
	workers     int
	databaseURL string // empty: DB endpoints answer 503
	poolMin     int32
	poolMax     int32
	prepared    bool // false: simple protocol, so PgBouncer transaction pooling works
	// extraCPU is CPU time burnt in every request (EXTRA_CPU_MICROS): a known slowdown for
	// regression tests. 0 by default, and then nothing wraps the handler.
	extraCPU time.Duration
	// serialWait is a wait every request takes in turn, one at a time (EXTRA_WAIT_MICROS):
	// a server of known capacity for capacity-search tests. 0 by default: nothing wraps.
	serialWait time.Duration
}

// loadConfig reads and checks the environment; every bad value is an error naming the variable.
func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{databaseURL: getenv("DATABASE_URL"), host: getenv("HOST")}
	if cfg.host == "" {
		cfg.host = "0.0.0.0"
	}
	if ip := net.ParseIP(cfg.host); ip == nil || ip.To4() == nil || strings.Contains(cfg.host, ":") {
		return cfg, fmt.Errorf("HOST must be an IPv4 address, got %q", cfg.host)
	}
	var err error
	if cfg.port, err = intVar(getenv, "PORT", 8080, 1, 65535); err != nil {
		return cfg, err
	}
	if cfg.workers, err = intVar(getenv, "WORKERS", 1, 1, 1024); err != nil {
		return cfg, err
	}
	poolMin, err := intVar(getenv, "DB_POOL_MIN", 5, 0, 10000)
	if err != nil {
		return cfg, err
	}
	poolMax, err := intVar(getenv, "DB_POOL_MAX", 15, 1, 10000)
	if err != nil {
		return cfg, err
	}
	if poolMin > poolMax {
		return cfg, fmt.Errorf("DB_POOL_MIN (%d) is greater than DB_POOL_MAX (%d)", poolMin, poolMax)
	}
	cfg.poolMin, cfg.poolMax = int32(poolMin), int32(poolMax)
	extra, err := intVar(getenv, "EXTRA_CPU_MICROS", 0, 0, 1_000_000)
	if err != nil {
		return cfg, err
	}
	cfg.extraCPU = time.Duration(extra) * time.Microsecond
	wait, err := intVar(getenv, "EXTRA_WAIT_MICROS", 0, 0, 1_000_000)
	if err != nil {
		return cfg, err
	}
	cfg.serialWait = time.Duration(wait) * time.Microsecond
	switch v := getenv("DB_PREPARED"); v {
	case "", "on":
		cfg.prepared = true
	case "off":
		cfg.prepared = false
	default:
		return cfg, fmt.Errorf("DB_PREPARED must be \"on\" or \"off\", got %q", v)
	}
	return cfg, nil
}

// intVar parses an optional integer variable within [lo, hi].
func intVar(getenv func(string) string, name string, def, lo, hi int) (int, error) {
	raw := getenv(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s must be an integer in %d..%d, got %q", name, lo, hi, raw)
	}
	return n, nil
}
