package wireagent

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

// Every capture slot's socket buffer at once (the kernel charges twice the size asked)
// stays within a quarter of the agent's memory limit as the chart sets it (the heap's worst
// case is about 60 MiB more): the limit and the slots cannot drift apart unnoticed.
func TestCaptureBuffersFitTheChartsLimit(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testenv.Root(), "charts", "gauntlet", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		WireCapture struct {
			Resources struct {
				Limits struct {
					Memory string `json:"memory"`
				} `json:"limits"`
			} `json:"resources"`
		} `json:"wireCapture"`
	}
	if err := yaml.Unmarshal(raw, &values); err != nil {
		t.Fatal(err)
	}
	limit, err := resource.ParseQuantity(values.WireCapture.Resources.Limits.Memory)
	if err != nil {
		t.Fatalf("wireCapture.resources.limits.memory: %v", err)
	}
	if all := int64(MaxRunning) * 2 * wire.ReceiveBuffer; all > limit.Value()/4 {
		t.Errorf("%d captures × 2 × %d bytes = %d MiB of socket buffers, over a quarter of the agent's limit of %s",
			MaxRunning, wire.ReceiveBuffer, all>>20, limit.String())
	}
}
