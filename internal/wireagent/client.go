package wireagent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Client talks to agents; BaseURL is given per call (one agent per node).
type Client struct {
	HTTP  *http.Client
	Token string
}

// Start starts (or finds) a capture on the agent at base.
func (c Client) Start(ctx context.Context, base string, q StartRequest) error {
	body, _ := json.Marshal(q)
	_, err := c.do(ctx, http.MethodPost, base+"/v1/captures", body)
	return err
}

// Stop stops a capture (or reads a stopped one) and returns its figures.
func (c Client) Stop(ctx context.Context, base, id string) (Figures, error) {
	return c.do(ctx, http.MethodPost, base+"/v1/captures/"+url.PathEscape(id)+"/stop", nil)
}

// StopPrefix stops every capture under prefix on the agent at base and says how many.
func (c Client) StopPrefix(ctx context.Context, base, prefix string) (int, error) {
	body, _ := json.Marshal(StopRequest{Prefix: prefix})
	var out Stopped
	err := c.call(ctx, http.MethodPost, base+"/v1/stop", body, &out)
	return out.Stopped, err
}

func (c Client) do(ctx context.Context, method, u string, body []byte) (Figures, error) {
	var f Figures
	err := c.call(ctx, method, u, body, &f)
	return f, err
}

func (c Client) call(ctx context.Context, method, u string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
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
