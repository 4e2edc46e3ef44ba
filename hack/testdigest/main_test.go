package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestDigestNamesTheFailedTestAndItsLines(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: want 4, got 13\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: fine\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestB"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	var out strings.Builder
	failed, err := digest(strings.NewReader(in), &out, false)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v: want a failure", failed, err)
	}
	_, d, ok := strings.Cut(out.String(), "=== digest: 1 failed\n")
	if !ok || !strings.Contains(d, "--- p TestA\n    a_test.go:9: want 4, got 13\n") || strings.Contains(d, "fine") {
		t.Errorf("digest:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "    b_test.go:3: fine\n") {
		t.Errorf("a passing test's output is not copied:\n%s", out.String())
	}
}

func TestDigestFailsAStreamWithoutAVerdict(t *testing.T) {
	in := `{"Action":"start","Package":"p"}` + "\n" +
		`{"Action":"output","Package":"p","Output":"panic: test timed out after 1m0s\n"}` + "\n"
	var out strings.Builder
	failed, _ := digest(strings.NewReader(in), &out, false)
	if !failed || !strings.Contains(out.String(), "no verdict") || !strings.Contains(out.String(), "panic: test timed out") {
		t.Errorf("failed %v:\n%s", failed, out.String())
	}
}

func TestDigestPassesAPassingRun(t *testing.T) {
	in := `{"Action":"start","Package":"p"}` + "\n" + `{"Action":"pass","Package":"p","Test":"TestA"}` + "\n" +
		`{"Action":"pass","Package":"p"}` + "\n"
	var out strings.Builder
	if failed, err := digest(strings.NewReader(in), &out, false); failed || err != nil || strings.Contains(out.String(), "digest") {
		t.Errorf("failed %v, err %v:\n%s", failed, err, out.String())
	}
}

func TestBriefPrintsOnlyPackagesAndTheDigest(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: want 4\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: fine\n"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	var out strings.Builder
	if failed, _ := digest(strings.NewReader(in), &out, true); !failed {
		t.Fatal("want a failure")
	}
	if got := out.String(); strings.Contains(got, "fine") || !strings.Contains(got, "FAIL\tp\t0.1s") || strings.Count(got, "want 4") != 1 {
		t.Errorf("brief output:\n%s", got)
	}
}

func TestDigestKeepsAnEarlyAssertion(t *testing.T) {
	events := []string{`{"Action":"start","Package":"p"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:7: rows differ\n"}`}
	for i := range maxLines + 5 {
		events = append(events, fmt.Sprintf(`{"Action":"output","Package":"p","Test":"TestA","Output":"        progress %d\n"}`, i))
	}
	events = append(events, `{"Action":"fail","Package":"p","Test":"TestA"}`, `{"Action":"fail","Package":"p"}`)
	var out strings.Builder
	if failed, _ := digest(strings.NewReader(strings.Join(events, "\n")), &out, true); !failed {
		t.Fatal("want a failure")
	}
	if !strings.Contains(out.String(), "1 of them assertions, shown first)\n    a_test.go:7: rows differ\n") {
		t.Errorf("the early assertion is not in the digest:\n%s", out.String())
	}
}
