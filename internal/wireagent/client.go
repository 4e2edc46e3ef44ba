package wireagent

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	certutil "k8s.io/client-go/util/cert"
)

// Client talks to agents over TLS; the base URL (https://node:port) is given per call, one
// agent per node. It trusts only the CA bundle it was given (SetCA) and checks ServerName
// whatever address it dials. Each request carries the token of TokenFile, read on each
// call: the kubelet rotates the manager's projected token there.
type Client struct {
	TokenFile string
	Timeout   time.Duration // per request; 10s when zero

	http atomic.Pointer[http.Client]
}

// NewClient is a client trusting the CA bundle caPEM, with the token of tokenFile.
func NewClient(tokenFile string, caPEM []byte) (*Client, error) {
	c := &Client{TokenFile: tokenFile}
	return c, c.SetCA(caPEM)
}

// SetCA makes the client trust the CA bundle caPEM (PEM certificates) and no other, from
// its next connection on: the operator renews the CA while the manager runs.
func (c *Client) SetCA(caPEM []byte) error {
	pool, err := certutil.NewPoolFromBytes(caPEM)
	if err != nil {
		return fmt.Errorf("wire agent CA: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // node addresses, never through a proxy
	t.TLSClientConfig = &tls.Config{RootCAs: pool, ServerName: ServerName, MinVersion: tls.VersionTLS13}
	if old := c.http.Swap(&http.Client{Transport: t, Timeout: timeout}); old != nil {
		old.CloseIdleConnections()
	}
	return nil
}

func (c *Client) token() (string, error) {
	b, err := os.ReadFile(c.TokenFile)
	token := strings.TrimSpace(string(b))
	if err == nil && token == "" {
		err = fmt.Errorf("empty")
	}
	if err != nil {
		return "", fmt.Errorf("the manager's token for the wire agents (%s): %w", c.TokenFile, err)
	}
	return token, nil
}

// Start starts (or finds) a capture on the agent at base.
func (c *Client) Start(ctx context.Context, base string, q StartRequest) error {
	body, _ := json.Marshal(q)
	_, err := c.do(ctx, http.MethodPost, base+"/v1/captures", body)
	return err
}

// Stop stops a capture (or reads a stopped one) and returns its figures.
func (c *Client) Stop(ctx context.Context, base, id string) (Figures, error) {
	return c.do(ctx, http.MethodPost, base+"/v1/captures/"+url.PathEscape(id)+"/stop", nil)
}

// StopPrefix stops every capture under prefix on the agent at base and says how many.
func (c *Client) StopPrefix(ctx context.Context, base, prefix string) (int, error) {
	body, _ := json.Marshal(StopRequest{Prefix: prefix})
	var out Stopped
	err := c.call(ctx, http.MethodPost, base+"/v1/stop", body, &out)
	return out.Stopped, err
}

func (c *Client) do(ctx context.Context, method, u string, body []byte) (Figures, error) {
	var f Figures
	err := c.call(ctx, method, u, body, &f)
	return f, err
}

func (c *Client) call(ctx context.Context, method, u string, body []byte, out any) error {
	hc := c.http.Load()
	if hc == nil {
		return fmt.Errorf("wire agent %s: the client has no CA (SetCA)", u)
	}
	token, err := c.token()
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("wire agent %s: %s: %s", u, resp.Status, strings.TrimSpace(string(data)))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("wire agent %s: %w", u, err)
	}
	return nil
}
