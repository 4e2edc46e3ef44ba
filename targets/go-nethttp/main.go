// Command server is the go-nethttp target: net/http from the standard library with one
// pgx/v5 pool per process, as in seed 001's Go service (targets/CONTRACT.md).
//
// Plain TCP listener: go.mod's go 1.26 makes listeners Multipath TCP by default, which costs
// req/s and serves no benchmark client (target.yaml has the measurement).

//go:debug multipathtcp=0
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// shutdownGrace leaves a margin inside the contract's 10 s exit deadline.
const shutdownGrace = 9 * time.Second

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-nethttp:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return err
	}
	runtime.GOMAXPROCS(cfg.workers) // seed 001: WORKERS is GOMAXPROCS for Go

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	var pool *pgxpool.Pool
	if cfg.databaseURL != "" {
		if pool, err = newPool(ctx, cfg); err != nil {
			return err
		}
		defer pool.Close()
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.host, strconv.Itoa(cfg.port)))
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           withSerialWait(cfg.serialWait, withExtraCPU(cfg.extraCPU, newRouter(pool))),
		ReadHeaderTimeout: 10 * time.Second, // a stalled client cannot hold a connection forever
		IdleTimeout:       120 * time.Second,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Stop accepting, let in-flight requests finish, then close idle keep-alive connections.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
