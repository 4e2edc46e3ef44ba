package specs

import (
	"strings"
	"testing"
)

func TestImageAllowed(t *testing.T) {
	allowed := []string{"ghcr.io/acme", "registry.internal:5000", "docker.io/library"}
	cases := []struct {
		image string
		ok    bool
	}{
		{"ghcr.io/acme/app:1.0", true},
		{"ghcr.io/acme/team/app@sha256:" + strings.Repeat("a", 64), true},
		{"ghcr.io/acme-evil/app:1.0", false}, // a prefix of a segment is not the segment
		{"ghcr.io/other/app", false},
		{"registry.internal:5000/x/y:2", true},
		{"registry.internal/x", false}, // another port is another registry
		{"nginx:1.27", true},           // docker.io/library/nginx
		{"someone/nginx", false},       // docker.io/someone/nginx
		{"Not A Reference", false},
	}
	for _, c := range cases {
		err := ImageAllowed("spec.targets[0].image", c.image, allowed)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want allowed=%v", c.image, err, c.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "spec.targets[0].image: ") {
			t.Errorf("%s: error %q does not start with the field path", c.image, err)
		}
	}
	if err := ImageAllowed("spec.targets[0].image", "anything.example/x", nil); err != nil {
		t.Errorf("an empty allow-list refused %v", err)
	}
}
