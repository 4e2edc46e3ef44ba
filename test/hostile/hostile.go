// Package hostile is a target that attacks whoever verifies it: it streams an endless body,
// sends a megabyte of headers, redirects to another address, answers one byte at a time, or
// closes in the middle of a response. It speaks raw HTTP/1.1 on a loopback socket, so every
// byte is the one a hostile server would send. Tests of the verifier and of the operator use it.
package hostile

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Mode is how the server misbehaves, on every request.
type Mode string

// The modes.
const (
	// EndlessBody answers 200 with a chunked body that never ends.
	EndlessBody Mode = "endless-body"
	// HugeHeaders answers 200 with 1 MiB of headers before a small body.
	HugeHeaders Mode = "huge-headers"
	// Redirect answers 302 to the Sink, a second listener that records being reached.
	Redirect Mode = "redirect"
	// Slow sends a valid response one byte at a time, a byte every SlowByteInterval.
	Slow Mode = "slow"
	// CloseMidResponse promises 1000 bytes of body, sends 10 and closes the connection.
	CloseMidResponse Mode = "close-mid-response"
	// RedirectLoad answers like a healthy target ({"status":"ok"}) to every request except
	// those carrying the runners' Gauntlet-Phase header, which it redirects (302) to the
	// Sink: it passes verification, then tries to turn the load onto another host.
	RedirectLoad Mode = "redirect-load"
)

// Modes lists every mode.
var Modes = []Mode{EndlessBody, HugeHeaders, Redirect, Slow, CloseMidResponse, RedirectLoad}

// SlowByteInterval is the pause between two bytes in Slow mode.
const SlowByteInterval = 50 * time.Millisecond

// HeaderBytes is how much header HugeHeaders sends.
const HeaderBytes = 1 << 20

// Server is a running hostile target.
type Server struct {
	// URL of the target, http://127.0.0.1:PORT.
	URL string
	// SinkURL is where Redirect points.
	SinkURL string

	mode      Mode
	ln, sink  net.Listener
	sinkHits  atomic.Int64
	sent      atomic.Int64
	requests  atomic.Int64
	wg        sync.WaitGroup
	closed    chan struct{}
	connsMu   sync.Mutex
	openConns map[net.Conn]bool
}

// Start listens on two loopback ports: the target and the redirect sink.
func Start(mode Mode) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sink, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{
		URL: "http://" + ln.Addr().String(), SinkURL: "http://" + sink.Addr().String(),
		mode: mode, ln: ln, sink: sink, closed: make(chan struct{}), openConns: map[net.Conn]bool{},
	}
	s.serve(ln, s.handle)
	s.serve(sink, func(c net.Conn) {
		s.sinkHits.Add(1)
		_, _ = fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 16\r\nConnection: close\r\n\r\n{\"secret\":\"yes\"}")
	})
	return s, nil
}

// SinkHits is how many connections reached the redirect sink.
func (s *Server) SinkHits() int64 { return s.sinkHits.Load() }

// BytesSent is how many bytes the target wrote, across connections.
func (s *Server) BytesSent() int64 { return s.sent.Load() }

// Requests is how many requests the target read.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Close stops both listeners and every open connection, and waits for their goroutines.
func (s *Server) Close() {
	close(s.closed)
	s.ln.Close()
	s.sink.Close()
	s.connsMu.Lock()
	for c := range s.openConns {
		c.Close()
	}
	s.connsMu.Unlock()
	s.wg.Wait()
}

func (s *Server) serve(ln net.Listener, handle func(net.Conn)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.connsMu.Lock()
			s.openConns[c] = true
			s.connsMu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer func() {
					s.connsMu.Lock()
					delete(s.openConns, c)
					s.connsMu.Unlock()
					c.Close()
				}()
				handle(c)
			}()
		}
	}()
}

// handle answers every request on a connection the hostile way, until one side gives up.
func (s *Server) handle(c net.Conn) {
	br := bufio.NewReader(c)
	w := &counter{c: c, n: &s.sent}
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		s.requests.Add(1)
		_ = req.Body.Close()
		if !s.answer(w, req) {
			return
		}
	}
}

// endlessChunk is written again and again, from one buffer: the server's own memory stays flat.
var endlessChunk = []byte(fmt.Sprintf("%x\r\n%s\r\n", 32<<10, strings.Repeat("7", 32<<10)))

// hugeHeaders are HeaderBytes of headers and a small body, built once.
var hugeHeaders = func() []byte {
	var b strings.Builder
	line := strings.Repeat("h", 1000)
	for i := 0; b.Len() < HeaderBytes; i++ {
		fmt.Fprintf(&b, "X-Pad-%d: %s\r\n", i, line)
	}
	b.WriteString("Content-Length: 15\r\n\r\n{\"status\":\"ok\"}")
	return []byte(b.String())
}()

const okHeaders = "Content-Type: application/json; charset=utf-8\r\nServer: hostile\r\n"

// answer writes one response; false ends the connection.
func (s *Server) answer(w *counter, req *http.Request) bool {
	date := "Date: " + time.Now().UTC().Format(http.TimeFormat) + "\r\n"
	switch s.mode {
	case EndlessBody:
		if !w.write("HTTP/1.1 200 OK\r\n" + okHeaders + date + "Transfer-Encoding: chunked\r\n\r\n") {
			return false
		}
		for w.writeBytes(endlessChunk) {
			select {
			case <-s.closed:
				return false
			default:
			}
		}
		return false
	case HugeHeaders:
		return w.write("HTTP/1.1 200 OK\r\n"+okHeaders+date) && w.writeBytes(hugeHeaders)
	case Redirect:
		return w.write("HTTP/1.1 302 Found\r\n" + okHeaders + date + "Location: " + s.SinkURL + "/latest/meta-data" + req.URL.Path +
			"\r\nContent-Length: 2\r\n\r\n{}")
	case RedirectLoad:
		if req.Header.Get("Gauntlet-Phase") != "" {
			return w.write("HTTP/1.1 302 Found\r\n" + okHeaders + date + "Location: " + s.SinkURL + req.URL.Path +
				"\r\nContent-Length: 2\r\n\r\n{}")
		}
		return w.write("HTTP/1.1 200 OK\r\n" + okHeaders + date + "Content-Length: 15\r\n\r\n{\"status\":\"ok\"}")
	case Slow:
		resp := "HTTP/1.1 200 OK\r\n" + okHeaders + date + "Content-Length: 15\r\n\r\n{\"status\":\"ok\"}"
		for i := 0; i < len(resp); i++ {
			if !w.write(resp[i : i+1]) {
				return false
			}
			select {
			case <-s.closed:
				return false
			case <-time.After(SlowByteInterval):
			}
		}
		return true
	case CloseMidResponse:
		w.write("HTTP/1.1 200 OK\r\n" + okHeaders + date + "Content-Length: 1000\r\n\r\n[2,3,5,7,11")
		return false
	}
	return false
}

// counter writes to a connection and counts what went out.
type counter struct {
	c net.Conn
	n *atomic.Int64
}

func (w *counter) write(s string) bool { return w.writeBytes([]byte(s)) }

func (w *counter) writeBytes(b []byte) bool {
	n, err := w.c.Write(b)
	w.n.Add(int64(n))
	return err == nil
}
