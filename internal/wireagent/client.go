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

func (c Client) do(ctx context.Context, method, u string, body []byte) (Figures, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return Figures{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Figures{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return Figures{}, err
	}
	if resp.StatusCode >= 300 {
		return Figures{}, fmt.Errorf("wire agent %s: %s: %s", u, resp.Status, strings.TrimSpace(string(data)))
	}
	var f Figures
	if err := json.Unmarshal(data, &f); err != nil {
		return Figures{}, fmt.Errorf("wire agent %s: %w", u, err)
	}
	return f, nil
}
