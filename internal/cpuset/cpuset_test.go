package cpuset

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestSplitAndFormat(t *testing.T) {
	for _, tc := range []struct {
		cpus     []int
		gen, tgt string
		shared   bool
	}{
		{[]int{0}, "0", "0", true},
		{[]int{0, 1}, "0", "1", false},
		{[]int{0, 1, 2}, "0", "1-2", false},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, "0-7", "8-15", false},
		{[]int{1, 3, 4, 5}, "1,3", "4-5", false},
	} {
		g, tg, shared := Split(tc.cpus)
		if Format(g) != tc.gen || Format(tg) != tc.tgt || shared != tc.shared {
			t.Errorf("%v: got %s | %s shared %v, want %s | %s %v", tc.cpus, Format(g), Format(tg), shared, tc.gen, tc.tgt, tc.shared)
		}
	}
}

// A child started on one CPU reports that CPU alone in its own /proc status, and so does
// the grandchild it starts; this process keeps all its CPUs.
func TestStartPinsTheChildAndItsChildren(t *testing.T) {
	cpus, err := Available()
	if err != nil || len(cpus) == 0 {
		t.Fatalf("available: %v %v", cpus, err)
	}
	last := cpus[len(cpus)-1:]
	cmd := exec.Command("/bin/sh", "-c", `grep Cpus_allowed_list /proc/self/status; sh -c 'grep Cpus_allowed_list /proc/self/status'`)
	var out strings.Builder
	cmd.Stdout = &out
	if err := Start(cmd, last); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	want := "Cpus_allowed_list:\t" + Format(last)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || lines[0] != want || lines[1] != want {
		t.Errorf("child and grandchild: %q, want %q twice", lines, want)
	}
	if after, _ := Available(); !slices.Equal(after, cpus) {
		t.Errorf("this process's CPUs changed: %v -> %v", cpus, after)
	}
	if err := Start(exec.Command("/nonexistent"), last); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("a failing start must return its error: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestDivide(t *testing.T) {
	for _, tc := range []struct {
		cpus []int
		n    int
		want []string // nil: not ok
	}{
		{[]int{1}, 2, nil},
		{[]int{1}, 1, []string{"1"}},
		{[]int{}, 1, nil},
		{[]int{0, 1}, 0, nil},
		{[]int{8, 9, 10, 11, 12, 13, 14, 15}, 2, []string{"8-11", "12-15"}},
		{[]int{4, 5, 6, 7, 8}, 2, []string{"4-5", "6-7"}}, // 8 unused: equal shares
		{[]int{2, 3, 5}, 3, []string{"2", "3", "5"}},
	} {
		shares, ok := Divide(tc.cpus, tc.n)
		var got []string
		for _, s := range shares {
			got = append(got, Format(s))
		}
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("Divide(%v, %d) = %v %v, want %v", tc.cpus, tc.n, got, ok, tc.want)
		}
	}
}
