package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"

	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
)

func init() { subcommands = append(subcommands, wireAgentCommand) }

func wireAgentCommand() *cobra.Command {
	listen := ":" + strconv.Itoa(wireagent.DefaultPort)
	certFile := "/var/run/gauntlet-wire/" + wireagent.CertKey
	keyFile := "/var/run/gauntlet-wire/" + wireagent.KeyKey
	audience, caller, kubeconfig := wireagent.Audience, "", ""
	cmd := &cobra.Command{
		Use:   "wire-agent",
		Short: "Capture a pod's request latency on its node's interfaces when the operator asks, and answer with figures only",
		Long: "The node agent of the cluster's wire latency (a DaemonSet on the host network, holding CAP_NET_RAW).\n" +
			"The operator starts a capture of a target pod's address and port when a trial's load starts and\n" +
			"stops it after: the agent answers with counts, percentiles and histogram buckets, never a payload.\n" +
			"It serves HTTPS only (the pair the operator keeps in a Secret, reloaded when the files change), and\n" +
			"every request must carry a service-account token for --audience that a TokenReview finds to be --caller's.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !strings.HasPrefix(caller, "system:serviceaccount:") || strings.Count(caller, ":") != 3 {
				return fmt.Errorf("--caller %q: want the manager's service account, system:serviceaccount:<namespace>:<name>", caller)
			}
			if audience == "" {
				return errors.New("--audience: want the audience of the manager's token")
			}
			cfg, err := rest.InClusterConfig()
			if kubeconfig != "" {
				cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
			}
			if err != nil {
				return fmt.Errorf("the agent reviews tokens with the API server: %w", err)
			}
			// JSON: a review a minute at most needs no protobuf, and any API server speaks it
			// (hack/wire-agent-cpu.sh's stub among them).
			cfg.ContentType = "application/json"
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return err
			}
			certs, err := certwatcher.New(certFile, keyFile)
			if err != nil {
				return fmt.Errorf("--tls-cert-file, --tls-key-file: %w", err)
			}
			l, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("--listen: %w", err)
			}
			auth := &wireagent.TokenReviewer{Reviews: cs.AuthenticationV1().TokenReviews(), Audience: audience, Caller: caller}
			srv := &http.Server{
				Handler:           (&wireagent.Server{Capture: wireagent.NodeCapturer, Auth: auth}).Handler(),
				TLSConfig:         &tls.Config{GetCertificate: certs.GetCertificate, MinVersion: tls.VersionTLS13},
				ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			// The kubelet updates the Secret's files when the operator renews the pair.
			go func() { _ = certs.Start(ctx) }()
			go func() {
				<-ctx.Done()
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(sctx)
			}()
			if err := srv.ServeTLS(l, "", ""); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", listen, "address to listen on (host:port), on the node's network: the chart gives the node's own address, so nothing listens on the host's other interfaces")
	cmd.Flags().StringVar(&certFile, "tls-cert-file", certFile, "serving certificate (from the Secret the operator keeps), reloaded when it changes")
	cmd.Flags().StringVar(&keyFile, "tls-key-file", keyFile, "key of --tls-cert-file")
	cmd.Flags().StringVar(&audience, "audience", audience, "audience the manager's service-account token must carry")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of the API server that reviews the tokens; empty: the pod's own (in-cluster)")
	cmd.Flags().StringVar(&caller, "caller", caller, "the one identity admitted, the manager's service account: system:serviceaccount:<namespace>:<name>")
	return cmd
}
