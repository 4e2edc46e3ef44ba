package specs

import (
	"fmt"
	"sort"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// cnpgManagedParameters are the postgresql.conf parameters CloudNativePG v1.30 sets itself
// and whose user values its webhook refuses ("fixed" or "blocked" in its
// pkg/postgres/configuration.go, FixedConfigurationParameters). Passing one on would make
// the whole Cluster fail admission, so they are dropped and reported instead.
var cnpgManagedParameters = setOf(`
	allow_system_table_mods archive_mode bonjour bonjour_name cluster_name config_file
	data_directory data_sync_retry event_source external_pid_file hba_file hot_standby
	ident_file jit_provider listen_addresses logging_collector port primary_conninfo
	primary_slot_name recovery_target recovery_target_action recovery_target_inclusive
	recovery_target_lsn recovery_target_name recovery_target_time recovery_target_timeline
	recovery_target_xid restore_command shared_preload_libraries temp_tablespaces
	unix_socket_directories unix_socket_group unix_socket_permissions
	archive_cleanup_command archive_command log_destination log_directory log_file_mode
	log_filename log_rotation_age log_rotation_size log_truncate_on_rotation
	pg_failover_slots.primary_dsn pg_failover_slots.standby_slot_names promote_trigger_file
	recovery_end_command recovery_min_apply_delay restart_after_crash ssl ssl_ca_file
	ssl_cert_file ssl_crl_file ssl_dh_params_file ssl_ecdh_curve ssl_key_file
	ssl_passphrase_command ssl_passphrase_command_supports_reload ssl_prefer_server_ciphers
	stats_temp_directory synchronous_standby_names synchronized_standby_slots
	syslog_facility syslog_ident syslog_sequence_numbers syslog_split_messages`)

// pgStatStatementsParameter turns pg_stat_statements on the CloudNativePG way: any
// pg_stat_statements.* parameter makes it preload the library and create the extension
// (shared_preload_libraries itself is operator-managed). "top" is PostgreSQL's default, so
// the setting changes nothing else; the verifier reads the view to prove DB endpoints query.
const pgStatStatementsParameter, pgStatStatementsValue = "pg_stat_statements.track", "top"

// PostgresParameters is what the Cluster gets from spec.database.parameters, and notes
// saying what was changed and why, for the controller to report as an event:
//   - parameters CloudNativePG manages are dropped (it would refuse the Cluster);
//   - wal_level minimal (seed 001's profile) is kept on one instance, with max_wal_senders 0
//     as CloudNativePG requires (and WAL archiving off, an annotation DatabaseCluster sets);
//     with replicas it becomes replica, the least WAL that streaming replication works with;
//   - pg_stat_statements is enabled when no pg_stat_statements.* parameter is given.
func PostgresParameters(db *benchv1.Database) (map[string]string, []string) {
	params := make(map[string]string, len(db.Parameters)+2)
	var notes []string
	for _, k := range sortedKeys(db.Parameters) {
		if cnpgManagedParameters[k] {
			notes = append(notes, fmt.Sprintf("parameter %s dropped: CloudNativePG manages it and refuses a value for it", k))
			continue
		}
		params[k] = db.Parameters[k]
	}
	if params["wal_level"] == "minimal" {
		if databaseInstances(db) > 1 {
			params["wal_level"] = "replica"
			notes = append(notes, "wal_level minimal replaced by replica: replicas need streamed WAL")
		} else if v, ok := params["max_wal_senders"]; !ok || v != "0" {
			if ok {
				notes = append(notes, fmt.Sprintf("max_wal_senders %s replaced by 0: wal_level minimal requires it", v))
			}
			params["max_wal_senders"] = "0"
		}
	}
	enabled := false
	for k := range params {
		enabled = enabled || strings.HasPrefix(k, "pg_stat_statements.")
	}
	if !enabled {
		params[pgStatStatementsParameter] = pgStatStatementsValue
	}
	return params, notes
}

func setOf(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
