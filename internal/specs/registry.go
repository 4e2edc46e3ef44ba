package specs

import (
	"fmt"
	"strings"

	"github.com/distribution/reference"
)

// ImageAllowed checks a bring-your-own image against the operator's registry allow-list
// (Config.AllowedRegistries); an empty list allows any. The image is normalized first, as
// the container runtime resolves it ("nginx" is docker.io/library/nginx), and an entry
// matches whole path segments only: "ghcr.io/acme" allows ghcr.io/acme/app, not
// ghcr.io/acme-evil/app. field names the spec field in the error.
func ImageAllowed(field, image string, allowed []string) error {
	if len(allowed) == 0 {
		return nil
	}
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return fmt.Errorf("%s: %q is not an image reference: %v", field, image, err)
	}
	name := named.Name() // host/path, without tag or digest
	for _, a := range allowed {
		a = strings.TrimSuffix(strings.TrimSpace(a), "/")
		if a != "" && (name == a || strings.HasPrefix(name, a+"/")) {
			return nil
		}
	}
	return fmt.Errorf("%s: image %q (%s) is not from a registry this operator allows (%s)",
		field, image, name, strings.Join(allowed, ", "))
}
