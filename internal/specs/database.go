package specs

import (
	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// appDatabase is the database and its owner that initdb creates; the targets use both.
const appDatabase = "app"

// SchemaKey is the key of targets/schema.sql in the schema ConfigMap.
const SchemaKey = "schema.sql"

// skipWALArchiving is CloudNativePG's annotation turning WAL archiving off; with archiving
// on (its default) CloudNativePG refuses wal_level minimal.
const skipWALArchiving = "cnpg.io/skipWalArchiving"

// SchemaConfigMap holds targets/schema.sql for the Cluster's bootstrap.
func SchemaConfigMap(run *benchv1.BenchmarkRun, cfg Config) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: objectMeta(run, SchemaName(run), AppSchema),
		Data:       map[string]string{SchemaKey: cfg.SchemaSQL},
	}
}

// DatabaseCluster is the run's PostgreSQL, or nil when the run has no database. initdb
// creates the app database owned by app (CloudNativePG puts its credentials in the
// <cluster>-app Secret) and runs the schema in it as the superuser.
func DatabaseCluster(run *benchv1.BenchmarkRun, cfg Config) *cnpgv1.Cluster {
	db := run.Spec.Database
	if db == nil {
		return nil
	}
	params, _ := PostgresParameters(db)
	meta := objectMeta(run, ClusterName(run), AppDatabase)
	if params["wal_level"] == "minimal" {
		meta.Annotations = map[string]string{skipWALArchiving: "enabled"}
	}
	size := quantityOr(db.Storage, "10Gi")
	storage := cnpgv1.StorageConfiguration{Size: size.String()}
	if db.StorageClass != "" {
		storage.StorageClass = ptr.To(db.StorageClass)
	}
	return &cnpgv1.Cluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: cnpgv1.SchemeGroupVersion.String(), Kind: "Cluster"},
		ObjectMeta: meta,
		Spec: cnpgv1.ClusterSpec{
			Instances:             databaseInstances(db),
			ImageName:             cfg.PostgresImage,
			PostgresConfiguration: cnpgv1.PostgresConfiguration{Parameters: params},
			Bootstrap: &cnpgv1.BootstrapConfiguration{InitDB: &cnpgv1.BootstrapInitDB{
				Database: appDatabase,
				Owner:    appDatabase,
				PostInitApplicationSQLRefs: &cnpgv1.SQLRefs{ConfigMapRefs: []cnpgv1.ConfigMapKeySelector{{
					LocalObjectReference: cnpgv1.LocalObjectReference{Name: SchemaName(run)}, Key: SchemaKey,
				}}},
			}},
			StorageConfiguration: storage,
			Certificates:         databaseCertificates(run),
			// CloudNativePG gives them to the instances' ServiceAccount, so every pod of
			// the Cluster (initdb's job included) pulls with them.
			ImagePullSecrets: cnpgPullSecrets(run),
		},
	}
}

// databaseCertificates adds the Pooler's Service names to the server certificate that
// CloudNativePG generates: PgBouncer presents that certificate to clients, and targets
// check the host name they dial against it (sslmode=verify-full). The instances' own
// Service names (<cluster>-rw...) are in it already.
func databaseCertificates(run *benchv1.BenchmarkRun) *cnpgv1.CertificatesConfiguration {
	if run.Spec.Database.ConnectVia == benchv1.ConnectViaDirect {
		return nil
	}
	p := PoolerName(run)
	return &cnpgv1.CertificatesConfiguration{
		ServerAltDNSNames: []string{p, p + "." + run.Namespace, p + "." + run.Namespace + ".svc"},
	}
}

// DatabasePooler is the run's PgBouncer in front of the primary, or nil when the run has
// no database. CloudNativePG names its Service after the Pooler, on port 5432.
func DatabasePooler(run *benchv1.BenchmarkRun) *cnpgv1.Pooler {
	db := run.Spec.Database
	if db == nil {
		return nil
	}
	// The API's Session and Transaction; CloudNativePG spells them in lowercase.
	mode := cnpgv1.PgBouncerPoolModeSession
	if db.Pooler.PoolMode == benchv1.PoolModeTransaction {
		mode = cnpgv1.PgBouncerPoolModeTransaction
	}
	var params map[string]string
	if len(db.Pooler.Parameters) > 0 {
		params = make(map[string]string, len(db.Pooler.Parameters))
		for k, v := range db.Pooler.Parameters {
			params[k] = v
		}
	}
	return &cnpgv1.Pooler{
		TypeMeta:   metav1.TypeMeta{APIVersion: cnpgv1.SchemeGroupVersion.String(), Kind: "Pooler"},
		ObjectMeta: objectMeta(run, PoolerName(run), AppPooler),
		Spec: cnpgv1.PoolerSpec{
			Cluster:   cnpgv1.LocalObjectReference{Name: ClusterName(run)},
			Type:      cnpgv1.PoolerTypeRW,
			Instances: ptr.To(max(db.Pooler.Instances, 1)),
			PgBouncer: &cnpgv1.PgBouncerSpec{PoolMode: mode, Parameters: params},
			Template:  poolerTemplate(run),
		},
	}
}

// poolerTemplate carries the run's pull secrets to the PgBouncer pods, nil without any.
// The Pooler has no imagePullSecrets of its own: CloudNativePG builds its Deployment's pod
// from this template, adding its containers to the empty list (which the schema requires).
func poolerTemplate(run *benchv1.BenchmarkRun) *cnpgv1.PodTemplateSpec {
	secrets := PullSecrets(run)
	if secrets == nil {
		return nil
	}
	return &cnpgv1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{}, ImagePullSecrets: secrets}}
}

func databaseInstances(db *benchv1.Database) int { return int(max(db.Instances, 1)) }
