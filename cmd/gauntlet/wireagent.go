package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
)

func init() { subcommands = append(subcommands, wireAgentCommand) }

func wireAgentCommand() *cobra.Command {
	listen := ":" + strconv.Itoa(wireagent.DefaultPort)
	tokenFile := "/var/run/gauntlet-wire/" + wireagent.TokenKey
	cmd := &cobra.Command{
		Use:   "wire-agent",
		Short: "Capture a pod's request latency on its node's interfaces when the operator asks, and answer with figures only",
		Long: "The node agent of the cluster's wire latency (a DaemonSet on the host network, holding CAP_NET_RAW).\n" +
			"The operator starts a capture of a target pod's address and port when a trial's load starts and\n" +
			"stops it after: the agent answers with counts, percentiles and histogram buckets, never a payload.\n" +
			"Every request must carry the bearer token of --token-file (the Secret the operator creates).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("--listen: %w", err)
			}
			srv := &http.Server{
				Handler:           (&wireagent.Server{Capture: wireagent.NodeCapturer, TokenFile: tokenFile}).Handler(),
				ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			go func() {
				<-ctx.Done()
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(sctx)
			}()
			if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", listen, "address to listen on (host:port), on the node's network: the chart gives the node's own address, so nothing listens on the host's other interfaces")
	cmd.Flags().StringVar(&tokenFile, "token-file", tokenFile, "file holding the bearer token every request must carry, read on each request")
	return cmd
}
