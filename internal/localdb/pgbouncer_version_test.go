package localdb

import (
	"maps"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

func TestPreparedStatementsSettingByVersion(t *testing.T) {
	seed := map[string]string{"default_pool_size": "50", preparedStatementsSetting: "0"}
	// 1.18 behaves as 0 and refuses the setting: it is dropped, the rest kept.
	got, err := forVersion(seed, 1, 18)
	if err != nil || len(got) != 1 || got["default_pool_size"] != "50" {
		t.Errorf("1.18 with 0: %v, %v; want only default_pool_size", got, err)
	}
	if seed[preparedStatementsSetting] != "0" {
		t.Error("forVersion changed its argument")
	}
	// From 1.21 it is written as given.
	if got, err := forVersion(seed, 1, 24); err != nil || !maps.Equal(got, seed) {
		t.Errorf("1.24: %v, %v; want the parameters unchanged", got, err)
	}
	// A value 1.18 cannot honour is refused, naming the setting and the version.
	_, err = forVersion(map[string]string{preparedStatementsSetting: "200"}, 1, 18)
	if err == nil || !strings.Contains(err.Error(), preparedStatementsSetting) || !strings.Contains(err.Error(), "1.18") {
		t.Errorf("1.18 with 200: %v; want an error naming the setting and the version", err)
	}
}

func TestPgBouncerVersionOfThisMachine(t *testing.T) {
	testenv.Long(t)
	binary, err := pgbouncerBinary("")
	if err != nil {
		t.Fatal(err)
	}
	major, minor, err := pgbouncerVersion(binary)
	if err != nil || major < 1 || major == 1 && minor < 10 {
		t.Fatalf("version %d.%d, %v", major, minor, err)
	}
}
