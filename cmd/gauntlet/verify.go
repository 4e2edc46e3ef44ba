package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/verify"
)

func init() { subcommands = append(subcommands, newVerifyCmd) }

// adminDSNEnv lets the admin DSN stay off the command line, where ps would show its password.
const adminDSNEnv = "GAUNTLET_ADMIN_DSN"

func newVerifyCmd() *cobra.Command {
	var (
		url, adminDSN, endpoints string
		timeout                  time.Duration
		verbose, noKeepAlive     bool
	)
	cmd := &cobra.Command{
		Use:   "verify --url URL [--endpoints a,b] [--admin-dsn DSN]",
		Short: "Check a running target against the endpoint contract (targets/CONTRACT.md)",
		Long: "verify sends every request the contract fixes and prints one block per endpoint with\n" +
			"each check: status, headers, exact bodies and shapes, sizes, 400s on bad input, timing of\n" +
			"the simulated latency and the long poll. With --admin-dsn (a direct PostgreSQL DSN; or\n" +
			"$" + adminDSNEnv + ") it also checks that DB endpoints really run their statement, through\n" +
			"pg_stat_statements, and that db-time agrees with the database clock.\n" +
			"Exit status 1 when a check fails.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keys, err := parseEndpoints(endpoints)
			if err != nil {
				return err
			}
			if adminDSN == "" {
				adminDSN = os.Getenv(adminDSNEnv)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "verifying %s", url)
			if adminDSN != "" {
				fmt.Fprintf(out, " (database checks through %s)", verify.RedactDSN(adminDSN))
			}
			fmt.Fprintln(out)
			rep, err := verify.Verify(cmd.Context(), verify.Options{BaseURL: url, Endpoints: keys, AdminDSN: adminDSN, Timeout: timeout, NoKeepAlive: noKeepAlive})
			if err != nil {
				return err
			}
			rep.WriteText(out, verbose)
			if n := len(rep.Failures()); n > 0 {
				return fmt.Errorf("%s does not follow the contract: %d checks failed", url, n)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "base URL of the running target, e.g. http://127.0.0.1:8080")
	f.StringVar(&endpoints, "endpoints", "", "comma-separated endpoint keys to check (default: all of "+joinKeys()+")")
	f.StringVar(&adminDSN, "admin-dsn", "", "direct PostgreSQL DSN able to read pg_stat_statements (default $"+adminDSNEnv+")")
	f.DurationVar(&timeout, "timeout", 10*time.Second, "timeout per request (the default-N primes request gets 12 times as long)")
	f.BoolVar(&noKeepAlive, "no-keep-alive", false, "the target closes every connection by design (target.yaml keepAlive: false)")
	f.BoolVarP(&verbose, "verbose", "v", false, "print passing checks too")
	_ = cmd.MarkFlagRequired("url")
	return cmd
}

func parseEndpoints(list string) ([]preset.Endpoint, error) {
	var out []preset.Endpoint
	for _, k := range strings.Split(list, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		e, err := preset.ParseEndpoint(k)
		if err != nil {
			return nil, fmt.Errorf("--endpoints: %w", err)
		}
		out = append(out, e)
	}
	return out, nil
}

func joinKeys() string {
	var s []string
	for _, e := range preset.AllEndpoints() {
		s = append(s, string(e))
	}
	return strings.Join(s, ",")
}
