package schedule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// DigestResolver resolves an image reference to the digest its registry serves for it now.
type DigestResolver interface {
	Digest(ctx context.Context, image string) (string, error)
}

// RegistryResolver asks the image's registry (a HEAD of the manifest), with the
// credentials of the operator's docker config when it has some, anonymously otherwise.
type RegistryResolver struct {
	Options []remote.Option
}

// Digest is the registry's digest for image; a reference by digest is its own.
func (r RegistryResolver) Digest(ctx context.Context, image string) (string, error) {
	ref, err := name.ParseReference(image)
	if err != nil {
		return "", err
	}
	if d, ok := ref.(name.Digest); ok {
		return d.DigestStr(), nil
	}
	opts := append([]remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)}, r.Options...)
	desc, err := remote.Head(ref, opts...)
	if err != nil {
		return "", err
	}
	return desc.Digest.String(), nil
}

// Digest checks: the default interval and the shortest.
const (
	DefaultPollInterval = 15 * time.Minute
	MinPollInterval     = time.Minute
	maxImages           = 16
)

// Reasons of the trigger events.
const (
	ReasonDigestFailed = "DigestResolveFailed"
	ReasonTriggered    = "RunTriggered"
)

func pollInterval(s *benchv1.BenchmarkSchedule) time.Duration {
	if s.Spec.Triggers == nil || s.Spec.Triggers.PollInterval == nil {
		return DefaultPollInterval
	}
	return max(s.Spec.Triggers.PollInterval.Duration, MinPollInterval)
}

// templateHash identifies spec.template: a change of any field changes it.
func templateHash(t benchv1.BenchmarkRunTemplate) string {
	data, _ := json.Marshal(t)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// templateImages are the images the template's targets run (a preset's from the operator's
// image configuration), sorted, each once, at most maxImages.
func templateImages(t benchv1.BenchmarkRunTemplate, images map[string]string) ([]string, error) {
	var out []string
	for _, target := range t.Spec.Targets {
		image, err := specs.TargetImage(target, specs.Config{Images: images})
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, image) {
			out = append(out, image)
		}
	}
	slices.Sort(out)
	if len(out) > maxImages {
		out = out[:maxImages]
	}
	return out, nil
}

// resolveDigests resolves the template's images; the first error stops it.
func (r *BenchmarkScheduleReconciler) resolveDigests(ctx context.Context, s *benchv1.BenchmarkSchedule) ([]benchv1.ImageDigest, error) {
	images, err := templateImages(s.Spec.Template, r.Images)
	if err != nil {
		return nil, err
	}
	resolver := r.Resolver
	if resolver == nil {
		resolver = RegistryResolver{}
	}
	out := make([]benchv1.ImageDigest, 0, len(images))
	for _, image := range images {
		d, err := resolver.Digest(ctx, image)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", image, err)
		}
		out = append(out, benchv1.ImageDigest{Image: image, Digest: d})
	}
	return out, nil
}

// changedDigest names the first image whose digest differs from the recorded one (or that
// was not recorded): "" when none does.
func changedDigest(recorded, now []benchv1.ImageDigest) string {
	for _, n := range now {
		i := slices.IndexFunc(recorded, func(r benchv1.ImageDigest) bool { return r.Image == n.Image })
		if i < 0 {
			return n.Image + " (new image) at " + n.Digest
		}
		if recorded[i].Digest != n.Digest {
			return n.Image + " moved from " + recorded[i].Digest + " to " + n.Digest
		}
	}
	return ""
}
