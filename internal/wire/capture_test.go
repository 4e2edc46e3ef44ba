//go:build linux

package wire

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"
)

// A real capture on loopback: a Go HTTP server, a client sending measured and warmup
// requests with and without keep-alive. Every request is seen, classified and paired.
func TestCaptureOnLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(20 * time.Millisecond)
		}
		_, _ = io.WriteString(w, "ok")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	c, err := Start(port, nil)
	if os.Geteuid() != 0 {
		// Without the privilege the capture says so plainly, and the caller carries on.
		if !errors.Is(err, ErrNoPrivilege) {
			t.Fatalf("unprivileged: want ErrNoPrivilege, got %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	send := func(client *http.Client, path, phase string, n int) {
		for range n {
			req, _ := http.NewRequest(http.MethodGet, base+path, nil)
			req.Header.Set("Gauntlet-Phase", phase)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	keep := &http.Client{Transport: &http.Transport{}}
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	send(keep, "/", "warmup", 7)
	send(keep, "/", "measure", 40)
	send(fresh, "/", "measure", 30)
	send(keep, "/slow", "measure", 2)
	time.Sleep(50 * time.Millisecond) // the last segments reach the socket
	r, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 72 || r.Unanswered != 0 || r.Dropped != 0 {
		t.Fatalf("requests %d unanswered %d dropped %d, want 72 0 0 (%+v)", r.Requests, r.Unanswered, r.Dropped, r)
	}
	if c.pairer.Other != 7 {
		t.Errorf("warmup requests seen: %d, want 7", c.pairer.Other)
	}
	// The two slow requests are the top 2.8%: p99 and max must show the 20 ms sleep, p50 not.
	if r.P99 < 20_000 || r.Max < 20_000 || r.P50 >= 20_000 || r.P50 <= 0 {
		t.Errorf("latencies do not match the server: %+v", r)
	}
}

func TestStartRefusesABadPort(t *testing.T) {
	if _, err := Start(0, nil); err == nil {
		t.Fatal("port 0 must be refused")
	}
}

// The kernel filter matches the target's address as well as its port: requests to the
// same port on another loopback address (another process's listener) are not counted.
func TestCaptureIgnoresThePortOnAnotherAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	other, err := net.Listen("tcp", "127.0.0.2:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	for _, l := range []net.Listener{ln, other} {
		srv := &http.Server{Handler: ok}
		go func() { _ = srv.Serve(l) }()
		defer srv.Close()
	}
	c, err := Start(port, nil)
	if os.Geteuid() != 0 {
		if !errors.Is(err, ErrNoPrivilege) {
			t.Fatalf("unprivileged: want ErrNoPrivilege, got %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{}}
	send := func(host string, n int) {
		for range n {
			req, _ := http.NewRequest(http.MethodGet, "http://"+host+":"+strconv.Itoa(port)+"/", nil)
			req.Header.Set("Gauntlet-Phase", "measure")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	send("127.0.0.2", 9)
	send("127.0.0.1", 4)
	time.Sleep(50 * time.Millisecond)
	r, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 4 || r.Unanswered != 0 {
		t.Errorf("requests %d unanswered %d, want the 4 sent to 127.0.0.1 and none of the 9 to 127.0.0.2 (%+v)", r.Requests, r.Unanswered, r)
	}
}
