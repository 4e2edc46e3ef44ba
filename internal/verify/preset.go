package verify

import "github.com/gauntlet-bench/gauntlet/internal/preset"

// ForPreset is the one place that decides how a target is verified, for the operator and the
// local mode alike: the endpoints (plan.VerifyEndpoints), the default timeouts, and what the
// preset declares of itself. A gunicorn sync worker closes every connection by design
// (target.yaml keepAlive: false): it is held to that declaration instead of being failed for
// not reusing connections. p is nil for a bring-your-own image, which must keep connections
// alive as the contract asks.
func ForPreset(p *preset.Preset, baseURL string, endpoints []preset.Endpoint) Options {
	return Options{
		BaseURL:     baseURL,
		Endpoints:   endpoints,
		NoKeepAlive: p != nil && !p.KeepsAlive(),
	}
}
