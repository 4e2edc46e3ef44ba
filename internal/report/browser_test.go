package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/report/reporttest"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// chromium opens a page in headless Chromium (reporttest.Chromium) and returns its stdout.
func chromium(t *testing.T, page string, args ...string) string {
	t.Helper()
	return reporttest.Chromium(t, page, args...)
}

// pageRequests are the network requests a page made, from Chromium's net log: those the
// browser starts for itself (its updater, clock, account checks) have no origin as their
// initiator; a page's carry the page's.
func pageRequests(t *testing.T, netlog string) []string {
	t.Helper()
	data, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int            `json:"type"`
			Params map[string]any `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("net log: %v", err)
	}
	start := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	var out []string
	for _, e := range log.Events {
		url, _ := e.Params["url"].(string)
		if e.Type != start || url == "" || strings.HasPrefix(url, "file:") || strings.HasPrefix(url, "data:") {
			continue
		}
		if e.Params["initiator"] != "not an origin" {
			out = append(out, fmt.Sprintf("%s (initiator %v)", url, e.Params["initiator"]))
		}
	}
	return out
}

var chartTag = regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`)

// The report in a real browser: it renders (a screenshot with the palette's colours in it),
// every chart the browser parsed has data marks, and the page makes no request at all. A
// page that does make one is caught, so the check is not vacuous. GAUNTLET_REPORT checks
// another report.html (a real run's); GAUNTLET_REPORT_SCREENSHOT keeps the screenshot.
func TestReportInChromium(t *testing.T) {
	testenv.Long(t)
	page := os.Getenv("GAUNTLET_REPORT")
	if page == "" {
		html, err := Report(comparedRun(t))
		if err != nil {
			t.Fatal(err)
		}
		page = filepath.Join(t.TempDir(), ReportFile)
		if err := os.WriteFile(page, html, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page, _ = filepath.Abs(page)
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	netlog := filepath.Join(t.TempDir(), "netlog.json")
	dom := chromium(t, page, "--dump-dom", "--log-net-log="+netlog)
	charts := chartTag.FindAllString(dom, -1)
	if want := strings.Count(string(src), `<svg class="chart"`); len(charts) != want || want < 4 {
		t.Fatalf("the browser parsed %d charts, the page has %d", len(charts), want)
	}
	for i, c := range charts {
		title := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(c)
		if n := strings.Count(c, `class="data"`); n == 0 {
			t.Errorf("chart %d (%v) has no data", i, title)
		}
	}
	if reqs := pageRequests(t, netlog); len(reqs) > 0 {
		t.Errorf("the page made requests: %v", reqs)
	}

	shot := filepath.Join(t.TempDir(), "report.png")
	chromium(t, page, "--window-size=1200,4200", "--screenshot="+shot)
	colours, b := reporttest.Colours(t, shot, 3)
	// The palette's blue (#4e79a7) and orange (#f28e2b) are drawn: the charts rendered.
	for _, c := range []uint32{0x4e79a7, 0xf28e2b} {
		if !colours[c] {
			t.Errorf("the screenshot has no #%06x: the charts did not render (%d colours)", c, len(colours))
		}
	}
	if keep := os.Getenv("GAUNTLET_REPORT_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(shot)
		if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d charts, each with data; no request left the page; screenshot %dx%d, %d colours", len(charts), b.Dx(), b.Dy(), len(colours))

	// The detector sees a page's request: the same page with an image from elsewhere and
	// without its content security policy (which would block the request before it left).
	leaky := filepath.Join(t.TempDir(), "leaky.html")
	html := strings.Replace(string(src), `<meta http-equiv="Content-Security-Policy"`, `<meta name="x"`, 1)
	html = strings.Replace(html, "<body>", `<body><img src="http://gauntlet.invalid/pixel.png">`, 1)
	if err := os.WriteFile(leaky, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	leakLog := filepath.Join(t.TempDir(), "leak.json")
	chromium(t, leaky, "--dump-dom", "--log-net-log="+leakLog)
	if reqs := pageRequests(t, leakLog); len(reqs) != 1 || !strings.Contains(reqs[0], "gauntlet.invalid") {
		t.Errorf("a page's own request went unseen: %v", reqs)
	}
}
