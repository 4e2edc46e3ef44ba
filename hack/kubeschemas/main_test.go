package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestConvertSchema(t *testing.T) {
	in := `{
	  "type": "object",
	  "properties": {
	    "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}], "default": {}},
	    "port": {"x-kubernetes-int-or-string": true},
	    "note": {"type": "string", "nullable": true},
	    "free": {"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-preserve-unknown-fields": true},
	    "labels": {"type": "object", "additionalProperties": {"type": "string"}}
	  }
	}`
	want := `{
	  "type": "object",
	  "additionalProperties": false,
	  "properties": {
	    "spec": {"allOf": [{"$ref": "#/definitions/io.k8s.api.apps.v1.DeploymentSpec"}], "default": {}},
	    "port": {"x-kubernetes-int-or-string": true, "oneOf": [{"type": "string"}, {"type": "integer"}]},
	    "note": {"type": ["string", "null"]},
	    "free": {"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-preserve-unknown-fields": true},
	    "labels": {"type": "object", "additionalProperties": {"type": "string"}}
	  }
	}`
	var schema, expected map[string]any
	if err := json.Unmarshal([]byte(in), &schema); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &expected); err != nil {
		t.Fatal(err)
	}
	var refs []string
	got := convertSchema(schema, &refs, "")
	// Round-trip through JSON so both sides have the same types.
	data, _ := json.Marshal(got)
	var gotJSON map[string]any
	_ = json.Unmarshal(data, &gotJSON)
	if !reflect.DeepEqual(gotJSON, expected) {
		t.Errorf("convert:\n got %s\nwant %s", data, want)
	}
	if !reflect.DeepEqual(refs, []string{"io.k8s.api.apps.v1.DeploymentSpec"}) {
		t.Errorf("refs = %v", refs)
	}
}

func TestFileNameIsKubeconformLayout(t *testing.T) {
	for _, tc := range []struct{ group, version, kind, want string }{
		{"", "v1", "Service", "service-v1.json"},
		{"apps", "v1", "Deployment", "deployment-apps-v1.json"},
		{"monitoring.coreos.com", "v1", "ServiceMonitor", "servicemonitor-monitoring-v1.json"},
		{"gauntlet.dev", "v1alpha1", "BenchmarkRun", "benchmarkrun-gauntlet-v1alpha1.json"},
	} {
		if got := fileName(tc.group, tc.version, tc.kind); got != tc.want {
			t.Errorf("fileName(%q, %q, %q) = %s, want %s", tc.group, tc.version, tc.kind, got, tc.want)
		}
	}
}
