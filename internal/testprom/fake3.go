package testprom

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Fake3 answers as Prometheus 3.9 does with the remote-write receiver on: native histograms
// stable (no feature flag), an empty write refused as a bad request (no valid snappy block),
// and cAdvisor series present. For the checks that need no real Prometheus's data.
func Fake3(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/status/buildinfo":
			fmt.Fprint(w, `{"status":"success","data":{"version":"3.9.1","revision":"x","branch":"HEAD","goVersion":"go1.25"}}`)
		case "/api/v1/status/flags":
			fmt.Fprint(w, `{"status":"success","data":{"enable-feature":"","web.enable-remote-write-receiver":"true"}}`)
		case "/api/v1/write":
			http.Error(w, "snappy: corrupt input", http.StatusBadRequest)
		case "/api/v1/query":
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"12"]}]}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
