package chart

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// volume is a rendered pod volume, as far as a Secret's.
type volume struct {
	Name   string `json:"name"`
	Secret *struct {
		SecretName string `json:"secretName"`
		Optional   bool   `json:"optional"`
		Items      []struct{ Key, Path string }
	} `json:"secret"`
}

// managerPod is the rendered manager pod's volumes and the manager container's mounts.
type managerPod struct {
	Volumes []volume `json:"volumes"`
	Mounts  []struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
		ReadOnly  bool   `json:"readOnly"`
	}
}

func renderedManagerPod(t *testing.T, objs []object) managerPod {
	t.Helper()
	d := find(objs, "Deployment", "gauntlet-manager")
	if d == nil {
		t.Fatal("no Deployment gauntlet-manager")
	}
	var dep struct {
		Spec struct {
			Template struct {
				Spec struct {
					Volumes    []map[string]any `json:"volumes"`
					Containers []struct {
						Name         string           `json:"name"`
						VolumeMounts []map[string]any `json:"volumeMounts"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	mustUnmarshal(t, d.Raw, &dep)
	var pod managerPod
	raw, _ := yaml.Marshal(dep.Spec.Template.Spec.Volumes)
	mustUnmarshal(t, raw, &pod.Volumes)
	for _, c := range dep.Spec.Template.Spec.Containers {
		if c.Name == "manager" {
			raw, _ := yaml.Marshal(c.VolumeMounts)
			mustUnmarshal(t, raw, &pod.Mounts)
		}
	}
	return pod
}

// TestHistoryDatabaseRendering: history.database.enabled renders a CloudNativePG Cluster
// <fullname>-history in the release namespace (database gauntlet_history, owner gauntlet,
// the instances and storage asked for), mounts its -app Secret's uri where
// --history-database-url-file points, and passes history.retentionDays as
// --history-retention; kubeconform accepts it against CloudNativePG's CRD. Without it none
// of that is rendered. A storage that is not a quantity is refused with its path.
func TestHistoryDatabaseRendering(t *testing.T) {
	off := render(t, "--namespace", "gauntlet-system")
	if n := count(off, "Cluster"); n != 0 {
		t.Errorf("history.database.enabled=false renders %d Clusters", n)
	}
	for _, a := range managerArgs(t, off) {
		if strings.HasPrefix(a, "--history-") {
			t.Errorf("history.database.enabled=false passes %s", a)
		}
	}
	for _, v := range renderedManagerPod(t, off).Volumes {
		if v.Name == "history-database" {
			t.Error("history.database.enabled=false mounts the history database's Secret")
		}
	}

	args := []string{"template", "gauntlet", chartDir, "--namespace", "gauntlet-system", "--set", "history.database.enabled=true",
		"--set", "history.database.instances=2", "--set", "history.database.storage=5Gi", "--set", "history.retentionDays=30"}
	manifests, err := helm(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	kubeconform(t, manifests)
	on := decode(t, manifests)
	c := find(on, "Cluster", "gauntlet-history")
	if c == nil {
		t.Fatal("history.database.enabled=true renders no Cluster gauntlet-history")
	}
	var cluster struct {
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			Instances int `json:"instances"`
			Bootstrap struct {
				InitDB struct{ Database, Owner string } `json:"initdb"`
			} `json:"bootstrap"`
			Storage struct{ Size string } `json:"storage"`
		} `json:"spec"`
	}
	mustUnmarshal(t, c.Raw, &cluster)
	if cluster.APIVersion != "postgresql.cnpg.io/v1" || c.Metadata.Namespace != "gauntlet-system" || cluster.Spec.Instances != 2 ||
		cluster.Spec.Bootstrap.InitDB.Database != "gauntlet_history" || cluster.Spec.Bootstrap.InitDB.Owner != "gauntlet" ||
		cluster.Spec.Storage.Size != "5Gi" {
		t.Errorf("Cluster %s/%s: %+v", c.Metadata.Namespace, c.Metadata.Name, cluster)
	}
	got := managerArgs(t, on)
	for _, want := range []string{"--history-database-url-file=/etc/gauntlet/history-database/uri", "--history-retention=720h"} {
		if !slices.Contains(got, want) {
			t.Errorf("manager args %v lack %s", got, want)
		}
	}
	pod := renderedManagerPod(t, on)
	vol := slices.IndexFunc(pod.Volumes, func(v volume) bool { return v.Name == "history-database" })
	if vol < 0 || pod.Volumes[vol].Secret == nil || pod.Volumes[vol].Secret.SecretName != "gauntlet-history-app" ||
		len(pod.Volumes[vol].Secret.Items) != 1 || pod.Volumes[vol].Secret.Items[0].Key != "uri" || pod.Volumes[vol].Secret.Items[0].Path != "uri" {
		t.Errorf("volumes %+v: want the Secret gauntlet-history-app's uri as the file uri", pod.Volumes)
	}
	mounted := false
	for _, m := range pod.Mounts {
		mounted = mounted || (m.Name == "history-database" && m.MountPath == "/etc/gauntlet/history-database" && m.ReadOnly)
	}
	if !mounted {
		t.Errorf("mounts %+v: the history database's Secret is not mounted read-only at /etc/gauntlet/history-database", pod.Mounts)
	}

	for set, path := range map[string]string{"history.database.storage=lots": "/history/database/storage",
		"history.database.instances=0": "/history/database/instances", "history.retentionDays=0": "/history/retentionDays"} {
		if _, err := helm(t, "template", "gauntlet", chartDir, "--set", set); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("--set %s: want a schema error naming %s, got %v", set, path, err)
		}
	}
}

// TestAggregatedRolesGrantNoSecrets: the roles the chart adds to every namespace editor and
// viewer grant nothing on Secrets (the history database's URL is one, in the release
// namespace) and no wildcard.
func TestAggregatedRolesGrantNoSecrets(t *testing.T) {
	objs := render(t, "--set", "history.database.enabled=true")
	n := 0
	for _, o := range objs {
		if o.Kind != "ClusterRole" || !hasAggregateLabel(o.Metadata.Labels) {
			continue
		}
		n++
		var role struct {
			Rules []struct {
				APIGroups []string `json:"apiGroups"`
				Resources []string `json:"resources"`
			} `json:"rules"`
		}
		mustUnmarshal(t, o.Raw, &role)
		for _, r := range role.Rules {
			if slices.Contains(r.Resources, "secrets") || slices.Contains(r.Resources, "*") || slices.Contains(r.APIGroups, "*") || slices.Contains(r.APIGroups, "") {
				t.Errorf("ClusterRole %s, aggregated into the built-in roles, grants %v on %v", o.Metadata.Name, r.Resources, r.APIGroups)
			}
		}
	}
	if n == 0 {
		t.Fatal("no aggregated ClusterRole rendered")
	}
}

func hasAggregateLabel(labels map[string]string) bool {
	for k, v := range labels {
		if strings.HasPrefix(k, "rbac.authorization.k8s.io/aggregate-to-") && v == "true" {
			return true
		}
	}
	return false
}

// TestHistoryDatabaseReader: history.database.reader.enabled adds a basic-auth Secret
// <fullname>-history-reader (user gauntlet_reader, a random 32-character password,
// cnpg.io/reload) and a managed role of that name in the Cluster: a login in
// pg_read_all_data only, whose password is that Secret's. Without it neither is rendered,
// and asking for it without the database is refused naming both values.
func TestHistoryDatabaseReader(t *testing.T) {
	type cluster struct {
		Spec struct {
			Managed *struct {
				Roles []struct {
					Name           string                `json:"name"`
					Ensure         string                `json:"ensure"`
					Login          bool                  `json:"login"`
					Superuser      bool                  `json:"superuser"`
					CreateDB       bool                  `json:"createdb"`
					CreateRole     bool                  `json:"createrole"`
					InRoles        []string              `json:"inRoles"`
					PasswordSecret struct{ Name string } `json:"passwordSecret"`
				} `json:"roles"`
			} `json:"managed"`
		} `json:"spec"`
	}
	off := render(t, "--set", "history.database.enabled=true")
	var c cluster
	mustUnmarshal(t, find(off, "Cluster", "gauntlet-history").Raw, &c)
	if c.Spec.Managed != nil || find(off, "Secret", "gauntlet-history-reader") != nil {
		t.Errorf("reader.enabled=false renders a reader: %+v", c.Spec.Managed)
	}

	manifests, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "gauntlet-system",
		"--set", "history.database.enabled=true", "--set", "history.database.reader.enabled=true")
	if err != nil {
		t.Fatal(err)
	}
	kubeconform(t, manifests)
	on := decode(t, manifests)
	mustUnmarshal(t, find(on, "Cluster", "gauntlet-history").Raw, &c)
	if c.Spec.Managed == nil || len(c.Spec.Managed.Roles) != 1 {
		t.Fatalf("managed roles: %+v, want gauntlet_reader alone", c.Spec.Managed)
	}
	r := c.Spec.Managed.Roles[0]
	if r.Name != "gauntlet_reader" || r.Ensure != "present" || !r.Login || r.Superuser || r.CreateDB || r.CreateRole ||
		!slices.Equal(r.InRoles, []string{"pg_read_all_data"}) || r.PasswordSecret.Name != "gauntlet-history-reader" {
		t.Errorf("the reader role: %+v", r)
	}
	s := find(on, "Secret", "gauntlet-history-reader")
	if s == nil {
		t.Fatal("no Secret gauntlet-history-reader")
	}
	var secret struct {
		Type string            `json:"type"`
		Data map[string][]byte `json:"data"`
	}
	mustUnmarshal(t, s.Raw, &secret)
	pw := string(secret.Data["password"])
	if secret.Type != "kubernetes.io/basic-auth" || string(secret.Data["username"]) != "gauntlet_reader" || len(pw) != 32 ||
		strings.Trim(pw, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" ||
		s.Metadata.Namespace != "gauntlet-system" || s.Metadata.Labels["cnpg.io/reload"] != "true" {
		t.Errorf("Secret gauntlet-history-reader: type %q, user %q, password of %d characters, labels %v",
			secret.Type, secret.Data["username"], len(pw), s.Metadata.Labels)
	}
	again, err := helm(t, "template", "gauntlet", chartDir, "--set", "history.database.enabled=true", "--set", "history.database.reader.enabled=true")
	if err != nil {
		t.Fatal(err)
	}
	var other struct{ Data map[string][]byte }
	mustUnmarshal(t, find(decode(t, again), "Secret", "gauntlet-history-reader").Raw, &other)
	if string(other.Data["password"]) == pw {
		t.Error("two renders made the same password: it is not random")
	}

	_, err = helm(t, "template", "gauntlet", chartDir, "--set", "history.database.reader.enabled=true")
	if err == nil || !strings.Contains(err.Error(), "history.database.reader.enabled needs history.database.enabled") {
		t.Errorf("a reader without the database: %v", err)
	}
}
