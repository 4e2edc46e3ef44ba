// Package api tests the BenchmarkRun API against a real kube-apiserver: what it accepts,
// what it refuses and why, and how kubectl shows it. `gauntlet validate` is held to the
// same verdicts.
package api

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/validation"
)

var (
	env       *testenv.Env
	validator *validation.Validator
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() { // the tests that need what the setup starts call testenv.Long
		os.Exit(m.Run())
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if env, err = testenv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the API server:", err)
		}
	}()
	if validator, err = validation.NewWithSchedules(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// newNamespace gives each test its own namespace, so names never collide.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "api-"}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

var strict = client.FieldValidation("Strict")
