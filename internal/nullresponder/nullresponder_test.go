package nullresponder

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestAnswersEverythingWithOK(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l) }()
	base := "http://" + l.Addr().String()
	client := &http.Client{}
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/ping", ""}, {"GET", "/healthz", ""}, {"POST", "/api/devices/3/command", `{"on":true}`}, {"DELETE", "/x?y=1", ""},
	} {
		req, _ := http.NewRequest(r.method, base+r.path, strings.NewReader(r.body))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "ok\n" || resp.Header.Get("Content-Length") != "3" {
			t.Errorf("%s %s: %d %q %v", r.method, r.path, resp.StatusCode, b, resp.Header)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve after cancel: %v", err)
	}
}
