package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// Database is a PostgreSQL cluster (CloudNativePG) with a PgBouncer pooler, loaded with
// targets/schema.sql. Defaults are seed 001's benchmark profile: fast, not durable.
// +kubebuilder:validation:XValidation:rule="!has(self.appPool) || self.appPool.min <= self.appPool.max",message="appPool.min must not exceed appPool.max",fieldPath=".appPool"
type Database struct {
	// Instances of PostgreSQL (1 primary plus replicas).
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5
	Instances int32 `json:"instances,omitempty"`

	// Storage size of each instance.
	// +optional
	// +kubebuilder:default="10Gi"
	Storage *resource.Quantity `json:"storage,omitempty"`

	// StorageClass of the volumes; empty uses the cluster default.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	StorageClass string `json:"storageClass,omitempty"`

	// Parameters of postgresql.conf. The default is seed 001's profile, tuned for throughput,
	// not for safety. Names at most 63 characters (PostgreSQL's own limit), values at most
	// 256 (shared_preload_libraries, log_line_prefix fit), so a run stays small in the
	// manager's cache.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 63 && size(self[k]) <= 256)",message="parameters: names at most 63 characters, values at most 256"
	// +kubebuilder:default={fsync: "off", synchronous_commit: "off", full_page_writes: "off", wal_level: "minimal", shared_buffers: "256MB", work_mem: "16MB", max_connections: "200"}
	Parameters map[string]string `json:"parameters,omitempty"`

	// Pooler is the PgBouncer in front of the database.
	// +optional
	// +kubebuilder:default={}
	Pooler Pooler `json:"pooler,omitempty"`

	// ConnectVia chooses what the targets connect to: the Pooler or PostgreSQL directly
	// (Direct).
	// +optional
	// +kubebuilder:default=Pooler
	ConnectVia ConnectVia `json:"connectVia,omitempty"`

	// AppPool is each worker process's own connection pool (seed 001: 5..15 per worker).
	// +optional
	// +kubebuilder:default={}
	AppPool AppPool `json:"appPool,omitempty"`

	// PreparedStatements: Enabled keeps each driver's default (asyncpg and pgx prepare
	// statements, which fails behind PgBouncer in transaction mode, as seed 001 found);
	// Disabled turns them off. Not on/off: unquoted, YAML 1.1 tools read those as booleans.
	// +optional
	// +kubebuilder:default=Enabled
	PreparedStatements PreparedStatements `json:"preparedStatements,omitempty"`
}

// Pooler is PgBouncer (a CloudNativePG Pooler).
type Pooler struct {
	// Instances of PgBouncer.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	Instances int32 `json:"instances,omitempty"`

	// PoolMode is PgBouncer's pool_mode: Session (seed 001's setup) or Transaction (seed
	// 001's PgBouncer test).
	// +optional
	// +kubebuilder:default=Session
	PoolMode PoolMode `json:"poolMode,omitempty"`

	// Parameters of pgbouncer.ini (seed 001: default_pool_size 50, max_client_conn 500).
	// Names at most 63 characters, values at most 256, as spec.database.parameters.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 63 && size(self[k]) <= 256)",message="parameters: names at most 63 characters, values at most 256"
	// +kubebuilder:default={default_pool_size: "50", max_client_conn: "500"}
	Parameters map[string]string `json:"parameters,omitempty"`
}

// AppPool is the connection pool of one worker process (DB_POOL_MIN, DB_POOL_MAX).
type AppPool struct {
	// +optional
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Min *int32 `json:"min,omitempty"`
	// +optional
	// +kubebuilder:default=15
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Max int32 `json:"max,omitempty"`
}

// ConnectVia is what the targets connect to.
// +kubebuilder:validation:Enum=Pooler;Direct
type ConnectVia string

// What the targets connect to.
const (
	// ConnectViaPooler connects the targets to the PgBouncer Pooler.
	ConnectViaPooler ConnectVia = "Pooler"
	// ConnectViaDirect connects the targets to PostgreSQL's read-write Service.
	ConnectViaDirect ConnectVia = "Direct"
)

// PreparedStatements says whether the targets' drivers may use server-side prepared
// statements. Enabled and Disabled rather than on and off: unquoted, YAML 1.1 tools read
// on/off (and yes/no) as booleans.
// +kubebuilder:validation:Enum=Enabled;Disabled
type PreparedStatements string

// Prepared statement settings.
const (
	// PreparedStatementsEnabled keeps each driver's default (DB_PREPARED=on).
	PreparedStatementsEnabled PreparedStatements = "Enabled"
	// PreparedStatementsDisabled disables server-side prepared statements (DB_PREPARED=off).
	PreparedStatementsDisabled PreparedStatements = "Disabled"
)

// PoolMode is PgBouncer's pooling mode.
// +kubebuilder:validation:Enum=Session;Transaction
type PoolMode string

// PgBouncer pool modes. PgBouncer's pool_mode and CloudNativePG's pgbouncer.poolMode spell
// them in lowercase (session, transaction); the operator and the local mode convert.
const (
	PoolModeSession     PoolMode = "Session"
	PoolModeTransaction PoolMode = "Transaction"
)

// DBPrepared is the value of the targets' DB_PREPARED variable (targets/CONTRACT.md): on
// or off; empty when unset.
func (p PreparedStatements) DBPrepared() string {
	switch p {
	case PreparedStatementsEnabled:
		return "on"
	case PreparedStatementsDisabled:
		return "off"
	}
	return ""
}
