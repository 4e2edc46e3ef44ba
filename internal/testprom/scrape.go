package testprom

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Scrape makes Prometheus scrape http://addr/metrics every second as job, with
// honor_labels on as the chart's ServiceMonitor for the manager sets it (the exported
// series carry a namespace label of their own); an empty addr removes the scrape. The
// configuration is rewritten and reloaded (SIGHUP), and Scrape returns once Prometheus
// serves the new one.
func (s *Server) Scrape(job, addr string) error {
	config := "global: {}\n"
	if addr != "" {
		config += fmt.Sprintf("scrape_configs:\n- job_name: %q\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  honor_labels: true\n"+
			"  static_configs:\n  - targets: [%q]\n", job, addr)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		return err
	}
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v1/status/config", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(body), "job_name: "+job) == (addr != "") {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("prometheus did not load the scrape of %s within 30s", job)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
