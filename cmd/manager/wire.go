package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gauntlet-bench/gauntlet/controllers"
	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
)

// wireAgents reads the wire agent flags: nil without a selector; otherwise the agents'
// token, from the Secret the operator creates in its namespace on first start (the
// agents mount it; their pods wait for it).
func wireAgents(selector string, port int, namespace, secret string, scheme *runtime.Scheme) (*controllers.WireAgents, error) {
	if selector == "" {
		return nil, nil
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, fmt.Errorf("--wire-agent-selector: %w", err)
	}
	if port <= 0 || port > 65535 {
		return nil, fmt.Errorf("--wire-agent-port %d: want 1 to 65535", port)
	}
	if namespace == "" || secret == "" {
		return nil, fmt.Errorf("--wire-agent-namespace and --wire-agent-token-secret must name the token Secret")
	}
	c, err := client.New(ctrl.GetConfigOrDie(), client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	token, err := controllers.EnsureWireToken(ctx, c, namespace, secret)
	if err != nil {
		return nil, err
	}
	return &controllers.WireAgents{Namespace: namespace, Selector: sel, Port: port,
		Client: wireagent.Client{Token: token, HTTP: &http.Client{Timeout: 10 * time.Second}}}, nil
}
