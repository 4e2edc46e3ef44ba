package chart

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// podEnv is the manager container's environment variables set from a field of its Pod.
func podEnv(t *testing.T, raw []byte) map[string]string {
	t.Helper()
	var d appsv1.Deployment
	if err := yaml.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name != "manager" {
			continue
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
				env[e.Name] = e.ValueFrom.FieldRef.FieldPath
			}
		}
	}
	return env
}

// TestPreflightPodIdentity: the manager learns its own Pod from the downward API, in the
// chart and in config/manager, so the preflight's Events are about that Pod; and when it
// watches another namespace than its own, a Role lets it write those Events in its own.
func TestPreflightPodIdentity(t *testing.T) {
	want := map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace", "POD_UID": "metadata.uid"}
	var deployment []byte
	for _, o := range render(t) {
		if o.Kind == "Deployment" {
			deployment = o.Raw
		}
	}
	if got := podEnv(t, deployment); !reflect.DeepEqual(got, want) {
		t.Errorf("the chart's manager: downward API env %v, want %v", got, want)
	}
	raw, err := os.ReadFile(filepath.Join(root, "config", "manager", "manager.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range decode(t, string(raw)) {
		if o.Kind == "Deployment" {
			found = true
			if got := podEnv(t, o.Raw); !reflect.DeepEqual(got, want) {
				t.Errorf("config/manager: downward API env %v, want %v", got, want)
			}
		}
	}
	if !found {
		t.Error("config/manager/manager.yaml holds no Deployment")
	}

	other := render(t, "--namespace", "gauntlet-system", "--set", "watchNamespace=team-a")
	role := find(other, "Role", "gauntlet-preflight-events")
	if role == nil || find(other, "RoleBinding", "gauntlet-preflight-events") == nil {
		t.Fatal("watchNamespace=team-a: no Role and RoleBinding gauntlet-preflight-events")
	}
	var r rbacv1.Role
	if err := yaml.Unmarshal(role.Raw, &r); err != nil {
		t.Fatal(err)
	}
	grants := r.Namespace == "gauntlet-system" && len(r.Rules) == 1 &&
		reflect.DeepEqual(r.Rules[0].APIGroups, []string{"events.k8s.io"}) && reflect.DeepEqual(r.Rules[0].Resources, []string{"events"})
	if !grants {
		t.Errorf("the preflight's Role %+v does not grant events.k8s.io events in gauntlet-system", r)
	}
	for _, args := range [][]string{{"--namespace", "gauntlet-system"}, {"--namespace", "team-a", "--set", "watchNamespace=team-a"}} {
		if find(render(t, args...), "Role", "gauntlet-preflight-events") != nil {
			t.Errorf("%v: a preflight Role, though the manager's own rules cover its namespace", args)
		}
	}
}
