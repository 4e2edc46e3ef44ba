package results

import benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"

// FlagMostlyFailed marks a repetition in which more than MostlyFailedPPM of the requests
// failed or timed out: its rate counts failures and its latencies are mostly the client's
// timeout or an error page's, so it says nothing of how fast the target serves.
const FlagMostlyFailed = "MostlyFailed"

// MostlyFailedPPM is half the requests: above it, most of what was measured is failures.
const MostlyFailedPPM = 500_000

// MostlyFailed says whether a repetition's requests mostly failed or timed out.
func MostlyFailed(m benchv1.Measurement) bool { return m.ErrorRatePPM > MostlyFailedPPM }
