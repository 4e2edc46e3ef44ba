package specs

import (
	"reflect"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

const clusterMetaYAML = `
  name: bench-db-9ce4039a98
  namespace: perf
  labels:
    app.kubernetes.io/name: gauntlet-database
    app.kubernetes.io/instance: bench-db-9ce4039a98
    app.kubernetes.io/part-of: gauntlet
    app.kubernetes.io/managed-by: gauntlet-operator
    gauntlet.dev/run: bench` + ownerYAML

// Fields CloudNativePG's types always serialize (non-pointer structs): sent as empty.
const clusterZeroYAML = `
  affinity: {}
  resources: {}
status: {certificates: {}, configMapResourceVersion: {}, managedRolesStatus: {}, secretsResourceVersion: {}, switchReplicaClusterStatus: {}, topology: {}}
`

const clusterBootstrapYAML = `
  bootstrap:
    initdb:
      database: app
      owner: app
      postInitApplicationSQLRefs:
        configMapRefs:
        - {name: bench-schema-2fe53c016d, key: schema.sql}`

func TestDatabaseCluster(t *testing.T) {
	replicated := fixtureRun()
	db := replicated.Spec.Database
	db.Instances, db.StorageClass = 3, "fast-ssd"
	db.Parameters["shared_preload_libraries"] = "auto_explain"
	db.Parameters["pg_stat_statements.max"] = "10000"
	cfg := fixtureConfig()
	cfg.PostgresImage = "ghcr.io/cloudnative-pg/postgresql:17.6"

	cases := []struct {
		name string
		run  *benchv1.BenchmarkRun
		cfg  Config
		want string
	}{{
		name: "seed 001 profile on one instance: wal_level minimal kept, archiving off",
		run:  fixtureRun(), cfg: fixtureConfig(),
		want: `
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata:
  annotations: {cnpg.io/skipWalArchiving: enabled}` + clusterMetaYAML + `
spec:
  instances: 1
  postgresql:
    parameters:
      fsync: "off"
      synchronous_commit: "off"
      full_page_writes: "off"
      wal_level: minimal
      max_wal_senders: "0"
      shared_buffers: 256MB
      work_mem: 16MB
      max_connections: "200"
      pg_stat_statements.track: top
    syncReplicaElectionConstraint: {enabled: false}` + clusterBootstrapYAML + `
  storage: {size: 10Gi}
  certificates: {serverAltDNSNames: [bench-pooler-6d807b0edb, bench-pooler-6d807b0edb.perf, bench-pooler-6d807b0edb.perf.svc]}` + clusterZeroYAML,
	}, {
		name: "replicas: wal_level replica, managed parameters dropped, own image and class",
		run:  replicated, cfg: cfg,
		want: `
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata:` + clusterMetaYAML + `
spec:
  instances: 3
  imageName: ghcr.io/cloudnative-pg/postgresql:17.6
  postgresql:
    parameters:
      fsync: "off"
      synchronous_commit: "off"
      full_page_writes: "off"
      wal_level: replica
      shared_buffers: 256MB
      work_mem: 16MB
      max_connections: "200"
      pg_stat_statements.max: "10000"
    syncReplicaElectionConstraint: {enabled: false}` + clusterBootstrapYAML + `
  storage: {size: 10Gi, storageClass: fast-ssd}
  certificates: {serverAltDNSNames: [bench-pooler-6d807b0edb, bench-pooler-6d807b0edb.perf, bench-pooler-6d807b0edb.perf.svc]}` + clusterZeroYAML,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assertObject(t, DatabaseCluster(c.run, c.cfg), c.want) })
	}
}

func TestPostgresParameters(t *testing.T) {
	cases := []struct {
		name      string
		instances int32
		in        map[string]string
		want      map[string]string
		notes     []string
	}{
		{"empty: pg_stat_statements only", 1, nil,
			map[string]string{"pg_stat_statements.track": "top"}, nil},
		{"managed parameters dropped and reported", 1,
			map[string]string{"port": "6543", "ssl": "off", "work_mem": "8MB"},
			map[string]string{"work_mem": "8MB", "pg_stat_statements.track": "top"},
			[]string{"parameter port dropped: CloudNativePG manages it and refuses a value for it",
				"parameter ssl dropped: CloudNativePG manages it and refuses a value for it"}},
		{"minimal overrides a user's max_wal_senders", 1,
			map[string]string{"wal_level": "minimal", "max_wal_senders": "10"},
			map[string]string{"wal_level": "minimal", "max_wal_senders": "0", "pg_stat_statements.track": "top"},
			[]string{"max_wal_senders 10 replaced by 0: wal_level minimal requires it"}},
		{"minimal with replicas becomes replica", 2,
			map[string]string{"wal_level": "minimal"},
			map[string]string{"wal_level": "replica", "pg_stat_statements.track": "top"},
			[]string{"wal_level minimal replaced by replica: replicas need streamed WAL"}},
		{"logical untouched; user's pg_stat_statements setting kept", 1,
			map[string]string{"wal_level": "logical", "pg_stat_statements.track": "all"},
			map[string]string{"wal_level": "logical", "pg_stat_statements.track": "all"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, notes := PostgresParameters(&benchv1.Database{Instances: c.instances, Parameters: c.in})
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("parameters = %v, want %v", got, c.want)
			}
			if !reflect.DeepEqual(notes, c.notes) {
				t.Errorf("notes = %q, want %q", notes, c.notes)
			}
		})
	}
}

func TestDatabasePooler(t *testing.T) {
	run := fixtureRun()
	inMemory := fixtureRun()
	inMemory.Spec.Database.Pooler = benchv1.Pooler{}
	session := fixtureRun()
	session.Spec.Database.Pooler.PoolMode = benchv1.PoolModeSession
	const meta = `
apiVersion: postgresql.cnpg.io/v1
kind: Pooler
metadata:
  name: bench-pooler-6d807b0edb
  namespace: perf
  labels:
    app.kubernetes.io/name: gauntlet-pooler
    app.kubernetes.io/instance: bench-pooler-6d807b0edb
    app.kubernetes.io/part-of: gauntlet
    app.kubernetes.io/managed-by: gauntlet-operator
    gauntlet.dev/run: bench` + ownerYAML
	cases := []struct {
		name string
		run  *benchv1.BenchmarkRun
		want string
	}{
		// The API's Transaction and Session: CloudNativePG takes PgBouncer's lowercase names.
		{"seed 001's transaction pooling", run, meta + `
spec:
  cluster: {name: bench-db-9ce4039a98}
  type: rw
  instances: 1
  pgbouncer:
    poolMode: transaction
    parameters: {default_pool_size: "50", max_client_conn: "500"}
status: {}
`},
		{"session pooling", session, meta + `
spec:
  cluster: {name: bench-db-9ce4039a98}
  type: rw
  instances: 1
  pgbouncer:
    poolMode: session
    parameters: {default_pool_size: "50", max_client_conn: "500"}
status: {}
`},
		{"not defaulted: session mode, one instance, PgBouncer's parameters", inMemory, meta + `
spec:
  cluster: {name: bench-db-9ce4039a98}
  type: rw
  instances: 1
  pgbouncer: {poolMode: session}
status: {}
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assertObject(t, DatabasePooler(c.run), c.want) })
	}
}

func TestSchemaConfigMap(t *testing.T) {
	assertObject(t, SchemaConfigMap(fixtureRun(), fixtureConfig()), `
apiVersion: v1
kind: ConfigMap
metadata:
  name: bench-schema-2fe53c016d
  namespace: perf
  labels:
    app.kubernetes.io/name: gauntlet-schema
    app.kubernetes.io/instance: bench-schema-2fe53c016d
    app.kubernetes.io/part-of: gauntlet
    app.kubernetes.io/managed-by: gauntlet-operator
    gauntlet.dev/run: bench`+ownerYAML+`
data:
  schema.sql: "CREATE TABLE t (id int);\n"
`)
}

func TestNoDatabase(t *testing.T) {
	run := fixtureRun()
	run.Spec.Database = nil
	if c := DatabaseCluster(run, fixtureConfig()); c != nil {
		t.Errorf("cluster without spec.database: %v", c)
	}
	if p := DatabasePooler(run); p != nil {
		t.Errorf("pooler without spec.database: %v", p)
	}
}
