package local

import (
	"os"
	"strings"
)

// installKeeps are the variables an install script run by root keeps: what finds the
// toolchains, reaches the package registries (proxies, CA bundles, mirrors) and caches
// builds. npm ci and pip install run code from the registries; root's tokens, cloud
// credentials (AWS_*), agent sockets (SSH_AUTH_SOCK) and runtime hooks (NODE_OPTIONS,
// PYTHONPATH, LD_PRELOAD) are not theirs.
var installKeeps = []string{
	"PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "TERM", "LANG", "LANGUAGE", "TZ",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_CERT", "GIT_SSL_CAINFO",
	"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "npm_config_registry", "NPM_CONFIG_REGISTRY",
	"GOPATH", "GOCACHE", "GOMODCACHE", "GOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOFLAGS", "GOTOOLCHAIN", "CGO_ENABLED",
}

// installEnviron is the environment of a target's install script. Run by root it is this
// process's environment cut to installKeeps and the locale (LC_*); run by anyone else it is
// the caller's own shell, as a developer expects of a build.
func installEnviron() []string {
	if os.Geteuid() != 0 {
		return os.Environ()
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := strings.HasPrefix(name, "LC_")
		for _, k := range installKeeps {
			keep = keep || name == k
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}
