package specs

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/distribution/reference"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Bounds of spec.database.storage. The CRD cannot say it (a CEL rule on a quantity costs
// more than the API server's budget), and a volume of 0, below zero or beyond any storage
// class never binds: the run would hold its node pools until the database timeout.
// PostgreSQL with its WAL needs about a gigabyte to start.
var (
	MinDatabaseStorage = resource.MustParse("1Gi")
	MaxDatabaseStorage = resource.MustParse("64Ti")
)

// CheckSpec lists, with their field paths, what the CRD accepts but a run must not do:
// database storage out of bounds, image names no runtime can pull, node selectors that
// are not labels, and request paths that reach another route than they
// read as (a dot segment, an empty segment or a percent-encoded character the target
// decodes: "/./api/db/ping" and "/api/%64b/ping" are "/api/db/ping" to its router, past
// the rule that such paths need spec.database).
func CheckSpec(spec *benchv1.BenchmarkRunSpec) field.ErrorList {
	var errs field.ErrorList
	if db := spec.Database; db != nil && db.Storage != nil {
		if q := db.Storage; q.Cmp(MinDatabaseStorage) < 0 || q.Cmp(MaxDatabaseStorage) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("spec", "database", "storage"), q.String(),
				fmt.Sprintf("must be at least %s and at most %s", MinDatabaseStorage.String(), MaxDatabaseStorage.String())))
		}
	}
	// An image the container runtime cannot parse fails only the run's own pods, but
	// later and less clearly; an option-like name ("--privileged") never reaches a shell,
	// and is refused with the others.
	image := func(p *field.Path, v string) {
		if v == "" {
			return
		}
		if _, err := reference.ParseNormalizedNamed(v); err != nil || strings.HasPrefix(v, "-") {
			why := "not an image reference"
			if err != nil {
				why += ": " + err.Error()
			}
			errs = append(errs, field.Invalid(p, v, why))
		}
	}
	for i, t := range spec.Targets {
		image(field.NewPath("spec", "targets").Index(i).Child("image"), t.Image)
	}
	image(field.NewPath("spec", "loadGenerator", "image"), spec.LoadGenerator.Image)
	// Node selectors go into the run's pods: refused here rather than when a Deployment
	// is created, after the run has taken the node-pool lock under that selector.
	for i, np := range spec.NodePools {
		errs = append(errs, metav1validation.ValidateLabels(np.NodeSelector, field.NewPath("spec", "nodePools").Index(i).Child("nodeSelector"))...)
	}
	for i, s := range spec.Scenarios {
		for j, r := range s.Requests {
			p := field.NewPath("spec", "scenarios").Index(i).Child("requests").Index(j).Child("path")
			route, canonical, err := routeOf(r.Path)
			switch {
			case err != nil:
				errs = append(errs, field.Invalid(p, r.Path, err.Error()))
			case route != canonical:
				errs = append(errs, field.Invalid(p, r.Path, fmt.Sprintf(
					"a target's router reads it as %q: write that (no \".\" or \"..\" segments, no \"//\")", canonical)))
			case spec.Database == nil && strings.HasPrefix(canonical, "/api/db/"):
				errs = append(errs, field.Invalid(p, r.Path, fmt.Sprintf(
					"it is %q to a target's router, a database route: set spec.database", canonical)))
			}
		}
	}
	return errs
}

// routeOf is a request path's route (before the query, percent-decoded) and the route
// cleaned as an HTTP router cleans it (a trailing "/" kept).
func routeOf(p string) (route, canonical string, err error) {
	raw, _, _ := strings.Cut(p, "?")
	route, err = url.PathUnescape(raw)
	if err != nil {
		return "", "", fmt.Errorf("not a valid escaped path: %w", err)
	}
	canonical = path.Clean(route)
	if strings.HasSuffix(route, "/") && canonical != "/" {
		canonical += "/"
	}
	return route, canonical, nil
}
