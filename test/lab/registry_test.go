//go:build lab && labfull

package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// previousChartVersion is the release the lab installs first and upgrades from: the chart
// of the tree with its BenchmarkRun CRD one printer column short, as an older release's is.
const previousChartVersion = "0.0.1-lab"

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// labChart is the chart as the lab's registry serves it.
type labChart struct {
	ref, version string
	// digest and previousDigest are what the pushes of the chart and of its previous
	// release reported: the lab installs both by digest.
	digest, previousDigest string
	// dropped is the printer column the previous release's CRD lacks.
	dropped string
}

// pushCharts packages the chart and its previous release and pushes both to the lab's
// registry as OCI artifacts, as a release publishes them.
func (l *lab) pushCharts(t *testing.T, helm string) labChart {
	dir := t.TempDir()
	src := filepath.Join(l.root, "charts", "gauntlet")
	prev := filepath.Join(dir, "previous", "gauntlet")
	if err := os.CopyFS(prev, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	chartFile := filepath.Join(prev, "Chart.yaml")
	raw, err := os.ReadFile(chartFile)
	if err != nil {
		t.Fatal(err)
	}
	versionLine := regexp.MustCompile(`(?m)^version: *(\S+)$`)
	m := versionLine.FindSubmatch(raw)
	if m == nil {
		t.Fatalf("%s names no version", chartFile)
	}
	if err := os.WriteFile(chartFile, versionLine.ReplaceAll(raw, []byte("version: "+previousChartVersion)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := labChart{ref: "oci://" + labRegistry + "/charts/gauntlet", version: string(m[1]),
		dropped: dropLastPrinterColumn(t, filepath.Join(prev, "files", "crds", "gauntlet.dev_benchmarkruns.yaml"))}
	for _, chart := range []string{src, prev} {
		l.command(t, helm, "package", chart, "--destination", dir)
	}
	for _, v := range []string{c.version, previousChartVersion} {
		out := l.command(t, helm, "push", filepath.Join(dir, "gauntlet-"+v+".tgz"), "oci://"+labRegistry+"/charts", "--plain-http")
		m := pushedDigest.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("helm push of %s reported no digest:\n%s", v, out)
		}
		if v == c.version {
			c.digest = m[1]
		} else {
			c.previousDigest = m[1]
		}
	}
	return c
}

var pushedDigest = regexp.MustCompile(`(?m)^Digest: (sha256:[0-9a-f]{64})$`)

// byDigest is the chart's reference pinned to a digest, as a release's users install it.
func (c labChart) byDigest(digest string) string { return c.ref + "@" + digest }

// dropLastPrinterColumn removes the CRD's last printer column and returns its name.
func dropLastPrinterColumn(t *testing.T, file string) string {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd unstructured.Unstructured
	if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if len(versions) == 0 {
		t.Fatalf("%s: no versions", file)
	}
	v := versions[0].(map[string]any)
	cols, _ := v["additionalPrinterColumns"].([]any)
	if len(cols) == 0 {
		t.Fatalf("%s: no printer columns", file)
	}
	name, _ := cols[len(cols)-1].(map[string]any)["name"].(string)
	v["additionalPrinterColumns"] = cols[:len(cols)-1]
	if err := unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(crd.Object)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// printerColumns are the BenchmarkRun CRD's columns as the API server serves them.
func (l *lab) printerColumns(t *testing.T) []string {
	crd, err := l.dyn.Resource(crdGVR).Get(ctx(t, time.Minute), "benchmarkruns.gauntlet.dev", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var names []string
	for _, v := range versions {
		cols, _, _ := unstructured.NestedSlice(v.(map[string]any), "additionalPrinterColumns")
		for _, c := range cols {
			n, _ := c.(map[string]any)["name"].(string)
			names = append(names, n)
		}
	}
	return names
}

// checkPulledFromRegistry: every container of the release's own pods (the manager, the wire
// agents; not the history database's, which runs CloudNativePG's PostgreSQL image) ran the
// image containerd pulled from the lab's registry by the chart's reference (a pulled image's
// id is the registry's repository digest; an imported one would be only its config's sha256).
func (l *lab) checkPulledFromRegistry(t *testing.T) {
	pods, err := l.client.CoreV1().Pods(installNamespace).List(ctx(t, time.Minute),
		metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=gauntlet"})
	if err != nil {
		t.Fatal(err)
	}
	want := labRegistry + "/gauntlet-bench/gauntlet@sha256:"
	n := 0
	for _, p := range pods.Items {
		for _, s := range p.Status.ContainerStatuses {
			n++
			if !strings.HasPrefix(s.ImageID, want) || !strings.HasPrefix(s.Image, labRegistry+"/") {
				t.Errorf("pod %s container %s runs %s (id %s), want an image pulled from %s", p.Name, s.Name, s.Image, s.ImageID, want)
			}
		}
	}
	if n == 0 {
		t.Errorf("no container runs in %s", installNamespace)
	}
}

// verifySigned signs each artifact by digest in the lab's registry with a key pair made for
// the test (hack/sign.sh, offline), then verifies it there with the public key, as a user
// checks a release before installing it; the chart is installed by that digest.
func (l *lab) verifySigned(t *testing.T, refs ...string) {
	t.Helper()
	dir := t.TempDir()
	cosign := strings.TrimSpace(l.command(t, "hack/tools.sh", "cosign"))
	env := append(os.Environ(), "HOME="+dir, "DOCKER_CONFIG="+dir, "COSIGN_PASSWORD=lab", "SIGN_PLAIN_HTTP=1", "COSIGN="+cosign)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(string(out), 30))
		}
		return string(out)
	}
	run(cosign, "generate-key-pair")
	sign := filepath.Join(l.root, "hack", "sign.sh")
	for _, ref := range refs {
		run(sign, "sign", ref, filepath.Join(dir, "cosign.key"))
		out := run(sign, "verify", ref, filepath.Join(dir, "cosign.pub"))
		if digest := ref[strings.LastIndex(ref, "@")+1:]; !strings.Contains(out, `"docker-manifest-digest":"`+digest+`"`) {
			t.Errorf("the verified signature of %s does not name its digest:\n%s", ref, tail(out, 10))
		}
	}
	t.Logf("signed and verified in the lab's registry: %s", strings.Join(refs, ", "))
}
