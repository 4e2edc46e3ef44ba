// Package nullresponder is the generator floor's server: it answers every request at once
// with the same small 200 response, so a trial against it measures the load generator and
// the loopback or network path alone. `gauntlet null-responder` serves it; the operator runs
// the same binary as a Deployment on the targets' node pool.
package nullresponder

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

var body = []byte("ok\n")

// Handler answers every method and path with 200 "ok": nothing is parsed, looked up or
// logged. The request body is read to its end so keep-alive connections stay usable.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h["Content-Type"] = []string{"text/plain"}
		h["Content-Length"] = []string{"3"}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

// Serve answers on l until ctx ends.
func Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
