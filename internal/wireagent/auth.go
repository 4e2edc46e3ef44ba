package wireagent

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	authv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
)

// Audience is the audience of the manager's service-account token for the agents: the
// projected token in the manager's pod carries it, and a token for the API server (or
// anyone else) is refused here.
const Audience = "gauntlet-wire-agent"

// Authenticator decides whether a bearer token is the manager's. A refusal is an
// *AuthError carrying its HTTP status.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) error
}

// AuthError is a refused request: 401 (no token or not a valid one), 403 (valid, but not
// the manager's) or 503 (the review itself failed: the agent cannot tell, so it refuses).
type AuthError struct {
	Status int
	Reason string
}

func (e *AuthError) Error() string { return e.Reason }

// Reviews cached: the manager's token and its rotations (the kubelet renews it at 80% of
// its life), and a second replica's; more than enough, and a flood of tokens evicts only
// the cache, never admits anyone.
const reviewCacheSize = 16

// DefaultReviewTTL is how long a positive review stands: a capture's polls within it cost
// the API server nothing; the manager's tokens live an hour (the chart's expirationSeconds).
const DefaultReviewTTL = time.Minute

// TokenReviewer authenticates with a TokenReview (authentication.k8s.io/v1) for Audience
// and admits only Caller, the manager's service account
// (system:serviceaccount:<namespace>:<name>). Positive reviews are cached for TTL, keyed
// by the token's SHA-256 (the token itself is not kept); refusals are not cached.
type TokenReviewer struct {
	Reviews  authv1client.TokenReviewInterface
	Audience string
	Caller   string
	TTL      time.Duration

	once  sync.Once
	known *cache.LRUExpireCache
}

// Authenticate reviews token, or finds a recent positive review of it.
func (r *TokenReviewer) Authenticate(ctx context.Context, token string) error {
	r.once.Do(func() { r.known = cache.NewLRUExpireCache(reviewCacheSize) })
	if token == "" {
		return &AuthError{http.StatusUnauthorized, "no bearer token: the manager's service-account token for audience " + r.Audience + " is required"}
	}
	key := sha256.Sum256([]byte(token))
	if _, ok := r.known.Get(key); ok {
		return nil
	}
	review, err := r.Reviews.Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{
		Token: token, Audiences: []string{r.Audience}}}, metav1.CreateOptions{})
	if err != nil {
		return &AuthError{http.StatusServiceUnavailable, fmt.Sprintf("cannot review the token with the API server (refused until it can): %v", err)}
	}
	st := review.Status
	if !st.Authenticated || !slices.Contains(st.Audiences, r.Audience) {
		why := strings.TrimSpace(st.Error)
		if why == "" {
			why = "not authenticated"
		}
		return &AuthError{http.StatusUnauthorized, fmt.Sprintf("token refused for audience %s: %s", r.Audience, why)}
	}
	if st.User.Username != r.Caller {
		return &AuthError{http.StatusForbidden, fmt.Sprintf("%s may not call the wire agent: only %s may", st.User.Username, r.Caller)}
	}
	ttl := r.TTL
	if ttl <= 0 {
		ttl = DefaultReviewTTL
	}
	r.known.Add(key, true, ttl)
	return nil
}
