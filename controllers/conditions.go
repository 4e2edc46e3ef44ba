package controllers

// Condition types of a BenchmarkRun, in one place.
const (
	// ConditionAccepted is True once the controller has read the spec it was given.
	ConditionAccepted = "Accepted"
	// ConditionDependenciesReady is True when the CRDs of CloudNativePG, k6-operator and
	// prometheus-operator that the run needs are served.
	ConditionDependenciesReady = "DependenciesReady"
	// ConditionReady, ConditionReconciling and ConditionStalled are what GitOps tools
	// (kstatus, Argo CD) read: Ready is set False from the start so it is never assumed True.
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"
)

// Condition reasons.
const (
	ReasonSpecAccepted = "SpecAccepted"
	ReasonPending      = "Pending"

	ReasonMissingDependency = "MissingDependency"
	ReasonInstalled         = "Installed"
)
