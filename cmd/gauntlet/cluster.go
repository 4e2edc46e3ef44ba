package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/spf13/pflag"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// clusterFlags reach the cluster as kubectl does: the user's kubeconfig (KUBECONFIG or
// ~/.kube/config, or --kubeconfig), its current context or --context, and its namespace
// or -n.
type clusterFlags struct {
	kubeconfig, context, namespace string
}

func (c *clusterFlags) add(f *pflag.FlagSet) {
	f.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG, else ~/.kube/config)")
	f.StringVar(&c.context, "context", "", "kubeconfig context (default: the current context)")
	f.StringVarP(&c.namespace, "namespace", "n", "", "namespace of the run (default: the context's)")
}

// client is a controller-runtime client for the BenchmarkRun API and the namespace to read.
func (c *clusterFlags) client() (client.Client, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = c.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: c.context}
	overrides.Context.Namespace = c.namespace
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := benchv1.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", err
	}
	return cl, ns, nil
}

// getRun reads one BenchmarkRun; a missing one is named with its namespace.
func getRun(ctx context.Context, cl client.Client, ns, name string) (*benchv1.BenchmarkRun, error) {
	run := &benchv1.BenchmarkRun{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, run); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("no BenchmarkRun %q in namespace %q: %w", name, ns, err)
		}
		return nil, err
	}
	return run, nil
}

// printData writes v as JSON or YAML (-o); "" is the command's own text instead.
func printData(w io.Writer, format string, v any) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return fmt.Errorf("unknown output format %q", format)
}

// checkOutput refuses an -o value other than json or yaml before anything is read.
func checkOutput(format string) error {
	if format != "" && format != "json" && format != "yaml" {
		return usage(fmt.Errorf("-o/--output %q: want json or yaml", format))
	}
	return nil
}
