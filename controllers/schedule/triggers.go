package schedule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// DigestResolver resolves an image reference to the digest its registry serves for it now,
// authenticating with keychain.
type DigestResolver interface {
	Digest(ctx context.Context, image string, keychain authn.Keychain) (string, error)
}

// RegistryResolver asks the image's registry (a HEAD of the manifest), with the
// credentials keychain finds for it (the template's pull secrets, then the operator's
// docker config; the operator's docker config alone when keychain is nil), anonymously
// otherwise.
// HTTPS only: go-containerregistry falls back to plain HTTP for loopback and private
// addresses, which would let a tenant's image name make the operator talk cleartext to
// anything on its network; InsecureRegistries (host[:port]) are the exceptions.
type RegistryResolver struct {
	InsecureRegistries []string
	Options            []remote.Option
}

// Digest is the registry's digest for image; a reference by digest is its own.
func (r RegistryResolver) Digest(ctx context.Context, image string, keychain authn.Keychain) (string, error) {
	ref, err := name.ParseReference(image)
	if err != nil {
		return "", err
	}
	if d, ok := ref.(name.Digest); ok {
		return d.DigestStr(), nil
	}
	if keychain == nil {
		keychain = authn.DefaultKeychain
	}
	opts := append([]remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain),
		remote.WithTransport(httpsOnly{base: remote.DefaultTransport, insecure: r.InsecureRegistries})}, r.Options...)
	desc, err := remote.Head(ref, opts...)
	if err != nil {
		return "", err
	}
	return desc.Digest.String(), nil
}

// httpsOnly refuses plain-HTTP requests except to the hosts listed.
type httpsOnly struct {
	base     http.RoundTripper
	insecure []string
}

func (t httpsOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" && !slices.Contains(t.insecure, req.URL.Host) {
		return nil, fmt.Errorf("%s: plain HTTP refused (the manager's --insecure-registries does not list it)", req.URL.Host)
	}
	return t.base.RoundTrip(req)
}

// DefaultRegistryTimeout bounds one pass's digest look-ups: the schedule controller has
// one worker, and a registry that accepts a connection and never answers must not hold
// every other schedule back.
const DefaultRegistryTimeout = 10 * time.Second

// maxEventDetail bounds what a registry's error adds to an event.
const maxEventDetail = 200

// registryError is err in words safe for an event: a registry's status code, never its
// response body (a tenant's registry chooses those bytes), and no control characters.
func registryError(err error) string {
	var terr *transport.Error
	if errors.As(err, &terr) {
		return fmt.Sprintf("the registry answered HTTP %d %s", terr.StatusCode, http.StatusText(terr.StatusCode))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer from the registry in time"
	}
	return sanitize(err.Error(), maxEventDetail)
}

// sanitize keeps the printable characters of s (escape sequences would drive a
// terminal showing `kubectl describe`), at most n bytes.
func sanitize(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, s)
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "..."
	}
	return s
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

// checkTriggers finds what may start a run besides the cron: a new gauntlet.dev/run-now
// value, a changed template, and the images' digests. Those are resolved when the poll
// interval has passed, or for a run about to start (a scheduled time, a request, or a
// changed template, which may name other images: the run records what it runs, so a
// commit that moves an image starts one run, not a second for the "new" image at the next
// poll); not while a run in progress would hold a new one back. The first template,
// digests and request seen are recorded, without a run.
func (r *BenchmarkScheduleReconciler) checkTriggers(ctx context.Context, sc *scope) error {
	s, st := sc.schedule, &sc.schedule.Status
	sc.triggers = ptr.Deref(s.Spec.Triggers, benchv1.ScheduleTriggers{})
	hash := templateHash(s.Spec.Template)
	sc.templateChanged = sc.triggers.TemplateChanges && st.LastTemplateHash != "" && st.LastTemplateHash != hash
	sc.request = findRequest(s, sc.runs, st.LastTemplateHash == "")
	checkDue := st.LastDigestCheckTime == nil || !sc.now.Before(st.LastDigestCheckTime.Add(pollInterval(s)))
	if sc.triggers.ImageDigests && !s.Spec.Suspend && !sc.forbidden && (checkDue || !sc.due.IsZero() || sc.templateChanged || sc.request != "") {
		r.checkDigests(ctx, sc)
	}
	if st.LastTemplateHash == "" {
		st.LastTemplateHash = hash
	}
	return nil
}

// checkDigests resolves the template's digests now; a failure is an event, not an error:
// the schedule's times go on without them.
func (r *BenchmarkScheduleReconciler) checkDigests(ctx context.Context, sc *scope) {
	s, st := sc.schedule, &sc.schedule.Status
	st.LastDigestCheckTime = &metav1.Time{Time: sc.now}
	timeout := r.RegistryTimeout
	if timeout <= 0 {
		timeout = DefaultRegistryTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	digests, err := r.resolveDigests(ctx, s)
	if err != nil {
		r.Recorder.Eventf(s, nil, "Warning", ReasonDigestFailed, "Resolve", "spec.triggers.imageDigests: %s", err.Error())
		return
	}
	sc.digests = digests
	if len(st.ImageDigests) == 0 {
		st.ImageDigests = digests
	}
}

// chooseTrigger picks what starts a run this pass, if anything: the scheduled time, then a
// run asked for (gauntlet.dev/run-now), then a changed template (a commit that changes an
// image also changes its digest), then a moved digest. Nothing while suspended: each waits. A run that is due and is the first of a changed
// template says TemplateChange (its name and time stay the scheduled ones): under Forbid a
// change made during a run is due with the next time, and the history must see where the
// template changed.
func (r *BenchmarkScheduleReconciler) chooseTrigger(_ context.Context, sc *scope) error {
	switch {
	case sc.schedule.Spec.Suspend:
	case !sc.due.IsZero() && sc.templateChanged:
		sc.trigger, sc.why = benchv1.TriggerTemplateChange, "spec.template changed since the last run (started at its scheduled time)"
	case !sc.due.IsZero():
		sc.trigger = benchv1.TriggerSchedule
	case sc.request != "":
		sc.trigger, sc.why = benchv1.TriggerManual, benchv1.AnnotationRunNow+"="+sanitize(sc.request, maxEventDetail)
	case sc.templateChanged:
		sc.trigger, sc.why = benchv1.TriggerTemplateChange, "spec.template changed since the last run"
	case sc.digests != nil:
		if moved := changedDigest(sc.schedule.Status.ImageDigests, sc.digests); moved != "" {
			sc.trigger, sc.why = benchv1.TriggerImageDigest, moved
		}
	}
	return nil
}

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
	// The run would be refused for such an image, so its registry is not contacted either
	// (a preset's image is the operator's own configuration).
	for i, t := range s.Spec.Template.Spec.Targets {
		if t.Image == "" {
			continue
		}
		if err := specs.ImageAllowed(fmt.Sprintf("spec.template.spec.targets[%d].image", i), t.Image, r.AllowedRegistries); err != nil {
			return nil, errors.New(sanitize(err.Error(), 2*maxEventDetail))
		}
	}
	keychain, err := r.pullKeychain(ctx, s)
	if err != nil {
		return nil, err
	}
	resolver := r.Resolver
	if resolver == nil {
		resolver = RegistryResolver{InsecureRegistries: r.InsecureRegistries}
	}
	out := make([]benchv1.ImageDigest, 0, len(images))
	for _, image := range images {
		d, err := resolver.Digest(ctx, image, keychain)
		if err != nil {
			return nil, fmt.Errorf("image %s: %s", sanitize(image, maxEventDetail), registryError(err))
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
