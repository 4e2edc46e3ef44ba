package v1alpha1

import "time"

// Duration is a Go-style duration of whole units, such as "30s", "5m" or "1m30s". At most
// five digits per unit and 32 characters keep every value far from overflowing; each field
// has its own upper bound.
// +kubebuilder:validation:MaxLength=32
// +kubebuilder:validation:Pattern=`^([0-9]{1,5}(ms|s|m|h))+$`
type Duration string

// Std returns the duration as a time.Duration; an unparsable value (refused by the schema)
// returns 0.
func (d Duration) Std() time.Duration {
	v, err := time.ParseDuration(string(d))
	if err != nil {
		return 0
	}
	return v
}

// LoadModel is how the load is applied: a fixed arrival rate (Open) or a fixed number of
// connections (Closed).
// +kubebuilder:validation:Enum=Open;Closed
type LoadModel string

// Pairing is how a same-run pair's arms share the machine (spec.load.pairing).
// +kubebuilder:validation:Enum=Interleaved;Duet
type Pairing string

// Pairings.
const (
	PairingInterleaved Pairing = "Interleaved"
	PairingDuet        Pairing = "Duet"
)

// Load models.
const (
	LoadModelOpen   LoadModel = "Open"
	LoadModelClosed LoadModel = "Closed"
)

// Load is the shape of the load applied to each target.
// +kubebuilder:validation:XValidation:rule="self.model != 'Open' || has(self.rates) || has(self.search)",message="rates or search are required when model is Open",fieldPath=".rates"
// +kubebuilder:validation:XValidation:rule="self.model == 'Open' || !has(self.search)",message="search finds an arrival rate: it needs model Open",fieldPath=".search"
// +kubebuilder:validation:XValidation:rule="self.model != 'Closed' || has(self.connections)",message="connections are required when model is Closed",fieldPath=".connections"
// +kubebuilder:validation:XValidation:rule="self.model != 'Open' || !has(self.connections)",message="connections apply to the Closed model only; the Open model takes rates",fieldPath=".connections"
// +kubebuilder:validation:XValidation:rule="self.model != 'Closed' || !has(self.rates)",message="rates apply to the Open model only; the Closed model takes connections",fieldPath=".rates"
type Load struct {
	// Model: Open sends a fixed arrival rate, so a slow server cannot slow the load down
	// (k6 constant-arrival-rate, like wrk2); Closed holds a fixed number of connections
	// (k6 constant-vus, like wrk -c).
	// +optional
	// +kubebuilder:default=Open
	Model LoadModel `json:"model,omitempty"`

	// Rates are the load points of the open model, in requests per second.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=10000000
	Rates []int32 `json:"rates,omitempty"`

	// Search, when set, finds each target's capacity under the SLO (open model): the highest
	// rate at which the SLO holds and the row is valid. Rates may be given too.
	// +optional
	Search *Search `json:"search,omitempty"`

	// Connections are the load points of the closed model, in concurrent connections.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=1000000
	Connections []int32 `json:"connections,omitempty"`

	// KeepAlive reuses connections; false sends Connection: close (seed 001's second table).
	// +optional
	// +kubebuilder:default=true
	KeepAlive *bool `json:"keepAlive,omitempty"`

	// Warmup runs before each measured window and is excluded from the results; at most 1h.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('1h')",message="warmup must be at most 1h"
	Warmup Duration `json:"warmup,omitempty"`

	// Duration of each measured window; at most 6h.
	// +optional
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('6h')",message="duration must be at most 6h"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) > duration('0s')",message="duration must be positive"
	Duration Duration `json:"duration,omitempty"`

	// Repetitions of every trial, interleaved across targets; results report the median.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=20
	Repetitions int32 `json:"repetitions,omitempty"`

	// OrderSeed fixes the random order of the targets in each round of trials (every
	// round is shuffled, so drift over the run falls on no target in particular); empty:
	// drawn when the run is accepted and recorded in status.orderSeed, which replays it.
	// +optional
	// +kubebuilder:validation:Minimum=1
	OrderSeed *int32 `json:"orderSeed,omitempty"`

	// Pairing is how the arms of a same-run pair (spec.targets[].baselineTarget) share the
	// machine in each round. Interleaved (empty): one after the other, next to each other in
	// a random order. Duet: at the same time, each arm under the whole load point and in its
	// own CPU limit (Bulej et al., "Duet Benchmarking", ICPE 2020): what disturbs the machine
	// then disturbs both arms alike. Locally one generator loads a pair's arms, their
	// arrivals in turns; in a cluster each arm has a TestRun of its own. docs/measurement.md
	// compares the two pairings.
	// +optional
	Pairing Pairing `json:"pairing,omitempty"`

	// RequestTimeout after which a request counts as an error; at most 5m.
	// +optional
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('5m')",message="requestTimeout must be at most 5m"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) > duration('0s')",message="requestTimeout must be positive"
	RequestTimeout Duration `json:"requestTimeout,omitempty"`

	// MaxVUs caps the virtual users of the open model (k6 maxVUs); empty lets Gauntlet size it.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	MaxVUs *int32 `json:"maxVUs,omitempty"`
}

// SLO is the service level every result row is judged against.
// +kubebuilder:validation:XValidation:rule="has(self.p50) || has(self.p90) || has(self.p95) || has(self.p99) || has(self.p999) || has(self.errorRate)",message="slo needs at least one of p50, p90, p95, p99, p999 or errorRate"
type SLO struct {
	// +optional
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('1h')",message="an SLO latency must be at most 1h"
	P50 Duration `json:"p50,omitempty"`
	// +optional
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('1h')",message="an SLO latency must be at most 1h"
	P90 Duration `json:"p90,omitempty"`
	// +optional
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('1h')",message="an SLO latency must be at most 1h"
	P95 Duration `json:"p95,omitempty"`
	// +optional
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('1h')",message="an SLO latency must be at most 1h"
	P99 Duration `json:"p99,omitempty"`
	// +optional
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('1h')",message="an SLO latency must be at most 1h"
	P999 Duration `json:"p999,omitempty"`

	// ErrorRate is the highest acceptable fraction of failed requests, such as "0.001".
	// +optional
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:Pattern=`^(0(\.[0-9]{1,6})?|1(\.0{1,6})?)$`
	ErrorRate string `json:"errorRate,omitempty"`
}
