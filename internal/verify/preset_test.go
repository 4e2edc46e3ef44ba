package verify

import (
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// The operator and the local mode both take their options from ForPreset: a preset that
// declares keepAlive: false (gunicorn sync workers) is held to that, everything else is not.
func TestForPresetKeepAlive(t *testing.T) {
	no := false
	cases := []struct {
		name string
		p    *preset.Preset
		want bool
	}{
		{"declared keepAlive: false", &preset.Preset{KeepAlive: &no}, true},
		{"keep-alive by default", &preset.Preset{}, false},
		{"bring-your-own image", nil, false},
	}
	for _, c := range cases {
		o := ForPreset(c.p, "http://127.0.0.1:1", []preset.Endpoint{preset.Ping})
		if o.NoKeepAlive != c.want || o.BaseURL != "http://127.0.0.1:1" || len(o.Endpoints) != 1 {
			t.Errorf("%s: got %+v", c.name, o)
		}
	}
}
