package preflight

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Prometheus probes what the runs need of their Prometheus, as the runs would use it.
func Prometheus(ctx context.Context, hc *http.Client, promURL, remoteWrite string) []Result {
	base := strings.TrimSuffix(promURL, "/")
	var out []Result
	var build struct {
		Data struct {
			Version string `json:"version"`
		} `json:"data"`
	}
	if err := getJSON(ctx, hc, base+"/api/v1/status/buildinfo", &build); err != nil {
		return append(out, Result{"prometheus", Missing, fmt.Sprintf("cannot read %s: %v", promURL, err)})
	}
	out = append(out, Result{"prometheus", OK, "version " + build.Data.Version})

	// A remote write with no series: Prometheus answers 404 with its "needs to be enabled"
	// message when the receiver is off, and a 4xx about the empty body (or 204) when it is
	// on; nothing is written either way.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, remoteWrite, bytes.NewReader(nil))
	if err != nil {
		return append(out, Result{"remote-write receiver", Missing, err.Error()})
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	resp, err := hc.Do(req)
	switch {
	case err != nil:
		out = append(out, Result{"remote-write receiver", Missing, fmt.Sprintf("%s: %v", remoteWrite, err)})
	default:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusNotFound:
			out = append(out, Result{"remote-write receiver", Missing, fmt.Sprintf("%s answers 404 (%s): enableRemoteWriteReceiver: true on the Prometheus resource (--web.enable-remote-write-receiver)", remoteWrite, strings.TrimSpace(string(body)))})
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			out = append(out, Result{"remote-write receiver", Missing, fmt.Sprintf("%s answers %d: k6 pushes without credentials", remoteWrite, resp.StatusCode)})
		case resp.StatusCode >= 500:
			out = append(out, Result{"remote-write receiver", Warn, fmt.Sprintf("%s answers %d: %s", remoteWrite, resp.StatusCode, strings.TrimSpace(string(body)))})
		default:
			out = append(out, Result{"remote-write receiver", OK, fmt.Sprintf("%s accepts remote writes", remoteWrite)})
		}
	}

	// Native histograms: stable from Prometheus 3.8; before, a feature flag.
	if atLeast(build.Data.Version, 3, 8) {
		out = append(out, Result{"native histograms", OK, "stable in Prometheus " + build.Data.Version})
	} else {
		var flags struct {
			Data map[string]string `json:"data"`
		}
		if err := getJSON(ctx, hc, base+"/api/v1/status/flags", &flags); err != nil {
			out = append(out, Result{"native histograms", Warn, "cannot read the flags to tell: " + err.Error()})
		} else if slices.Contains(strings.Split(flags.Data["enable-feature"], ","), "native-histograms") {
			out = append(out, Result{"native histograms", OK, "--enable-feature=native-histograms"})
		} else {
			out = append(out, Result{"native histograms", Missing, fmt.Sprintf("Prometheus %s without --enable-feature=native-histograms (enableFeatures: [native-histograms]): k6's latency histograms would be dropped", build.Data.Version)})
		}
	}

	// cAdvisor: the targets' and runners' CPU and memory.
	var q struct {
		Data struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	query := `count(container_cpu_usage_seconds_total{container!=""})`
	if err := getJSON(ctx, hc, base+"/api/v1/query?query="+url.QueryEscape(query), &q); err != nil {
		out = append(out, Result{"cAdvisor series", Warn, "cannot query: " + err.Error()})
	} else if len(q.Data.Result) == 0 {
		out = append(out, Result{"cAdvisor series", Missing, "no container_cpu_usage_seconds_total with a container label: the kubelet's /metrics/cadvisor is not scraped (kube-prometheus-stack's kubelet ServiceMonitor does)"})
	} else {
		out = append(out, Result{"cAdvisor series", OK, "container_cpu_usage_seconds_total present"})
	}
	return out
}

func getJSON(ctx context.Context, hc *http.Client, address string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s: %s", address, resp.Status, strings.TrimSpace(string(body)))
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// atLeast is whether a Prometheus version ("3.9.1", "2.42.0+ds") is major.minor or later.
func atLeast(version string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(version, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}
