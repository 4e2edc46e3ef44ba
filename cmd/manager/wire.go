package main

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gauntlet-bench/gauntlet/controllers"
	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
)

// wireTLSCheck is how often the manager checks the agents' TLS Secret for renewal; a pair
// is renewed with a third of its validity (30 days of the serving certificate's 90) left.
const wireTLSCheck = time.Hour

// wireAgents reads the wire agent flags: nil without a selector; otherwise a client that
// presents the manager's projected token (tokenFile) and trusts the CA of the agents' TLS
// Secret, which the operator creates in its namespace on first start (the agents mount it;
// their pods wait for it) and renews (keepWireTLS).
func wireAgents(selector string, port int, namespace, tlsSecret, tokenFile string, scheme *runtime.Scheme) (*controllers.WireAgents, client.Client, error) {
	if selector == "" {
		return nil, nil, nil
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, nil, fmt.Errorf("--wire-agent-selector: %w", err)
	}
	if port <= 0 || port > 65535 {
		return nil, nil, fmt.Errorf("--wire-agent-port %d: want 1 to 65535", port)
	}
	if namespace == "" || tlsSecret == "" {
		return nil, nil, fmt.Errorf("--wire-agent-namespace and --wire-agent-tls-secret must name the agents' TLS Secret")
	}
	if tokenFile == "" {
		return nil, nil, fmt.Errorf("--wire-agent-token-file: want the manager's projected token for audience %s", wireagent.Audience)
	}
	c, err := client.New(ctrl.GetConfigOrDie(), client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ca, err := controllers.EnsureWireTLS(ctx, c, namespace, tlsSecret, time.Now())
	if err != nil {
		return nil, nil, err
	}
	wc, err := wireagent.NewClient(tokenFile, ca)
	if err != nil {
		return nil, nil, err
	}
	return &controllers.WireAgents{Namespace: namespace, Selector: sel, Port: port, Client: wc}, c, nil
}

// keepWireTLS renews the agents' TLS Secret while the manager runs and points the client at
// its CA bundle. Every replica runs it (each needs the current CA), not the leader alone.
type keepWireTLS struct {
	c               client.Client
	namespace, name string
	agents          *controllers.WireAgents
}

func (k keepWireTLS) NeedLeaderElection() bool { return false }

func (k keepWireTLS) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("wire-tls")
	tick := time.NewTicker(wireTLSCheck)
	defer tick.Stop()
	var trusted []byte
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		ca, err := controllers.EnsureWireTLS(ctx, k.c, k.namespace, k.name, time.Now())
		if err == nil && !bytes.Equal(ca, trusted) {
			if err = k.agents.Client.SetCA(ca); err == nil {
				trusted = ca
			}
		}
		if err != nil {
			log.Error(err, "renewing the wire agents' TLS Secret; retrying in an hour", "secret", k.namespace+"/"+k.name)
		}
	}
}
