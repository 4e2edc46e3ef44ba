package chart

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// TestImagePullSecretsOnEveryChartPod: the chart's imagePullSecrets reach both pods it
// runs, the manager's and the wire agents' (their image is the manager's by default, so
// from the same private registry). A run's own pods take the run's spec.imagePullSecrets.
func TestImagePullSecretsOnEveryChartPod(t *testing.T) {
	out, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "bench", "--set", "wireCapture.enabled=true",
		"--set", "imagePullSecrets[0].name=regcred", "--set", "imagePullSecrets[1].name=mirror")
	if err != nil {
		t.Fatal(err)
	}
	pods := 0
	for _, o := range decode(t, out) {
		var secrets []string
		switch o.Kind {
		case "Deployment":
			var d appsv1.Deployment
			mustUnmarshal(t, o.Raw, &d)
			for _, s := range d.Spec.Template.Spec.ImagePullSecrets {
				secrets = append(secrets, s.Name)
			}
		case "DaemonSet":
			var d appsv1.DaemonSet
			mustUnmarshal(t, o.Raw, &d)
			for _, s := range d.Spec.Template.Spec.ImagePullSecrets {
				secrets = append(secrets, s.Name)
			}
		default:
			continue
		}
		pods++
		if len(secrets) != 2 || secrets[0] != "regcred" || secrets[1] != "mirror" {
			t.Errorf("%s %s pulls with %v, want [regcred mirror]", o.Kind, o.Metadata.Name, secrets)
		}
	}
	if pods != 2 {
		t.Errorf("%d pod templates rendered, want the manager's and the wire agents'", pods)
	}
}
