package local

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// The local mode runs a YAML file, often someone else's, on the user's own machine, where
// no CloudNativePG and no pod sandbox stand between the spec and the user's files. Settings
// that run a program, load a library or name a file are refused unless the user passes
// --allow-unsafe (RunOptions.AllowUnsafe). In a cluster CloudNativePG refuses its own list
// of fixed parameters and the pod is the sandbox.

// SafePostgresParameters are the postgresql.conf settings a spec may set in the local mode:
// seed 001's profile (the API's default) and the usual throughput tuning: memory, WAL and
// checkpoints, planner costs, parallelism, autovacuum, timeouts and logging to stderr. It is
// an allow-list: a setting not named here (archive_command, shared_preload_libraries,
// log_directory, ssl_passphrase_command, data_directory ...) needs --allow-unsafe.
var SafePostgresParameters = []string{
	// seed 001 (api/v1alpha1 defaults)
	"fsync", "synchronous_commit", "full_page_writes", "wal_level", "max_wal_senders",
	"shared_buffers", "work_mem", "max_connections",
	// memory
	"effective_cache_size", "maintenance_work_mem", "autovacuum_work_mem", "temp_buffers",
	"huge_pages", "logical_decoding_work_mem", "hash_mem_multiplier",
	// WAL and checkpoints
	"wal_buffers", "wal_compression", "wal_writer_delay", "wal_writer_flush_after",
	"wal_sync_method", "wal_log_hints", "wal_init_zero", "wal_recycle", "wal_skip_threshold",
	"commit_delay", "commit_siblings", "checkpoint_timeout", "checkpoint_completion_target",
	"checkpoint_flush_after", "checkpoint_warning", "max_wal_size", "min_wal_size",
	"max_replication_slots",
	// background writer and I/O
	"bgwriter_delay", "bgwriter_lru_maxpages", "bgwriter_lru_multiplier", "bgwriter_flush_after",
	"backend_flush_after", "effective_io_concurrency", "maintenance_io_concurrency",
	// planner
	"random_page_cost", "seq_page_cost", "cpu_tuple_cost", "cpu_index_tuple_cost",
	"cpu_operator_cost", "default_statistics_target", "jit", "plan_cache_mode",
	"enable_seqscan", "enable_indexscan", "enable_indexonlyscan", "enable_bitmapscan",
	"enable_hashjoin", "enable_mergejoin", "enable_nestloop", "enable_sort", "enable_hashagg",
	"enable_partitionwise_join", "enable_partitionwise_aggregate",
	// parallelism and workers
	"max_worker_processes", "max_parallel_workers", "max_parallel_workers_per_gather",
	"max_parallel_maintenance_workers", "parallel_setup_cost", "parallel_tuple_cost",
	// autovacuum
	"autovacuum", "autovacuum_max_workers", "autovacuum_naptime", "autovacuum_vacuum_cost_delay",
	"autovacuum_vacuum_cost_limit", "autovacuum_vacuum_scale_factor",
	"autovacuum_analyze_scale_factor", "autovacuum_vacuum_threshold", "autovacuum_analyze_threshold",
	// locks, transactions, timeouts, connections
	"max_locks_per_transaction", "max_pred_locks_per_transaction", "max_prepared_transactions",
	"default_transaction_isolation", "statement_timeout", "lock_timeout",
	"idle_in_transaction_session_timeout", "idle_session_timeout", "deadlock_timeout",
	"superuser_reserved_connections", "tcp_keepalives_idle", "tcp_keepalives_interval",
	"tcp_keepalives_count", "password_encryption",
	// statistics and logging (to stderr, which the run keeps)
	"track_io_timing", "track_activities", "track_counts", "track_functions",
	"track_activity_query_size", "log_min_duration_statement", "log_min_messages",
	"log_checkpoints", "log_connections", "log_disconnections", "log_lock_waits",
	"log_temp_files", "log_autovacuum_min_duration", "log_statement",
	// pg_stat_statements, which the run always loads
	"pg_stat_statements.max", "pg_stat_statements.track", "pg_stat_statements.track_utility",
	"pg_stat_statements.save",
}

// SafePoolerParameters are the pgbouncer.ini settings a spec may set in the local mode: pool
// sizes, limits and timeouts. Files (auth_hba_file, TLS keys), auth_query, admin and stats
// users, syslog and resolv_conf need --allow-unsafe; listen and auth settings are gauntlet's.
var SafePoolerParameters = []string{
	"default_pool_size", "min_pool_size", "reserve_pool_size", "reserve_pool_timeout",
	"max_client_conn", "max_db_connections", "max_user_connections", "max_prepared_statements",
	"server_round_robin", "server_idle_timeout", "server_lifetime", "server_connect_timeout",
	"server_login_retry", "server_reset_query", "server_reset_query_always", "server_check_query",
	"server_check_delay", "query_timeout", "query_wait_timeout", "client_idle_timeout",
	"client_login_timeout", "idle_transaction_timeout", "pkt_buf", "sbuf_loopcnt",
	"max_packet_size", "listen_backlog", "tcp_defer_accept", "tcp_keepalive", "tcp_keepcnt",
	"tcp_keepidle", "tcp_keepintvl", "tcp_socket_buffer", "disable_pqexec",
	"application_name_add_host", "stats_period", "log_connections", "log_disconnections",
	"log_pooler_errors", "log_stats", "verbose",
}

// unsafeEnv are variables that make an interpreter, the dynamic loader or a shell load or
// run code named by the variable itself: an env entry would run the spec author's code.
// GODEBUG, GOGC, GOMAXPROCS, UV_THREADPOOL_SIZE, MALLOC_ARENA_MAX and the like stay allowed:
// they tune a runtime and load nothing (GODEBUG's settings are runtime switches, not hooks).
var unsafeEnv = []string{
	"PATH", // the shells of start scripts (nginx) look their commands up in it
	// Node.js: --require/--import of any module, module search path
	"NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE",
	// Python: startup files, module search paths, warnings and breakpoint hooks import modules
	"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT", "PYTHONUSERBASE",
	"PYTHONWARNINGS", "PYTHONBREAKPOINT", "PYTHONPLATLIBDIR", "PYTHONEXECUTABLE", "PYPYLOG",
	"GUNICORN_CMD_ARGS", // --config loads a Python file, --bind moves the listener
	// Perl, Ruby, Java
	"PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
	// shells: files sourced at start; SHELLOPTS=xtrace with PS4 runs command substitutions
	"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4",
	// glibc and OpenSSL load modules from these
	"GCONV_PATH", "LOCPATH", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
}

// unsafeEnvPrefixes: the dynamic loaders' variables (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT;
// DYLD_INSERT_LIBRARIES on macOS).
var unsafeEnvPrefixes = []string{"LD_", "DYLD_"}

// HostVar is the contract's listen address: the local mode sets 127.0.0.1, the cluster
// leaves it unset (0.0.0.0 in the pod).
const HostVar = "HOST"

// CheckUnsafe lists what in spec would run code or touch files of this machine's user, or
// open a listener beyond loopback, each with its field path. The local mode refuses a spec
// with any of them unless the user passed --allow-unsafe.
func CheckUnsafe(spec *benchv1.BenchmarkRunSpec) field.ErrorList {
	var errs field.ErrorList
	if db := spec.Database; db != nil {
		p := field.NewPath("spec", "database", "parameters")
		for _, k := range sortedKeys(db.Parameters) {
			if reason := unsafePostgresParameter(k, db.Parameters[k]); reason != "" {
				errs = append(errs, field.Forbidden(p.Child(k), reason))
			}
		}
		p = field.NewPath("spec", "database", "pooler", "parameters")
		for _, k := range sortedKeys(db.Pooler.Parameters) {
			if !slices.Contains(SafePoolerParameters, k) {
				errs = append(errs, field.Forbidden(p.Child(k), "not among the pool sizes, limits and timeouts the local mode allows (it may name a file or a query run as another user)"))
			}
		}
	}
	for i, t := range spec.Targets {
		for j, e := range t.Env {
			p := field.NewPath("spec", "targets").Index(i).Child("env").Index(j).Child("name")
			switch {
			case e.Name == HostVar:
				errs = append(errs, field.Forbidden(p, "HOST is set by gauntlet: the local mode binds targets to 127.0.0.1"))
			case slices.Contains(unsafeEnv, e.Name) || hasAnyPrefix(e.Name, unsafeEnvPrefixes):
				errs = append(errs, field.Forbidden(p, fmt.Sprintf("%s makes the runtime, the loader or a shell load code it names", e.Name)))
			}
		}
	}
	return errs
}

func unsafePostgresParameter(name, value string) string {
	if name == "shared_preload_libraries" {
		for _, l := range strings.Split(value, ",") {
			if l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), `"`)); l != "" && l != "pg_stat_statements" {
				return fmt.Sprintf("loads library %q; the local mode allows only pg_stat_statements, which it always loads", l)
			}
		}
		return ""
	}
	if !slices.Contains(SafePostgresParameters, name) {
		return "not among the settings the local mode allows (seed 001's profile and throughput tuning): it may run a program, load a library or name a file"
	}
	return ""
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// UnsafeError is CheckUnsafe's refusal, one line per field.
func UnsafeError(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = "  - " + e.Error()
	}
	return fmt.Errorf("refused: this spec would run code or touch files on this machine in the local mode (pass --allow-unsafe if you trust its author):\n%s", strings.Join(lines, "\n"))
}
