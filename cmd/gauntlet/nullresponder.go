package main

import (
	"fmt"
	"net"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gauntlet-bench/gauntlet/internal/nullresponder"
)

func init() { subcommands = append(subcommands, nullResponderCommand) }

func nullResponderCommand() *cobra.Command {
	listen := "127.0.0.1:8080"
	cmd := &cobra.Command{
		Use:   "null-responder",
		Short: "Serve 200 \"ok\" to every request at once: the target of the generator-floor trials",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("--listen: %w", err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return nullresponder.Serve(ctx, l)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", listen, "address to listen on (host:port)")
	return cmd
}
