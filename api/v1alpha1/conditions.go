package v1alpha1

// Condition types of a BenchmarkRun, set by the operator and by the local mode alike.
const (
	// ConditionAccepted is True once the spec was read and its trials planned.
	ConditionAccepted = "Accepted"
	// ConditionDependenciesReady is True when the CRDs of CloudNativePG, k6-operator and
	// prometheus-operator that the run needs are served (locally: the tools are installed).
	ConditionDependenciesReady = "DependenciesReady"
	// ConditionDatabaseReady is True when PostgreSQL (and its pooler) serve.
	ConditionDatabaseReady = "DatabaseReady"
	// ConditionTargetsReady is True when every target answers its readiness probe.
	ConditionTargetsReady = "TargetsReady"
	// ConditionTargetsVerified is True when every target passed the contract checks.
	ConditionTargetsVerified = "TargetsVerified"
	// ConditionNodePoolsAvailable is False while another run loads a node pool this one needs.
	ConditionNodePoolsAvailable = "NodePoolsAvailable"
	// ConditionComplete is True once every trial that could run has run.
	ConditionComplete = "Complete"
	// ConditionSLOMet is the verdict of every result row against spec.slo.
	ConditionSLOMet = "SLOMet"
	// ConditionRegressed is True when a result row is Slower than the same row of
	// spec.baseline's run, False when none is, Unknown when the baseline could not be read.
	ConditionRegressed = "Regressed"
	// ConditionConclusive says whether the run's figures support an answer: False when no
	// result row is valid, or when an invalid row could beat the headline's; the reasons
	// are counted in its message. A finished run that is not Conclusive is not Ready.
	ConditionConclusive = "Conclusive"
	// ConditionReady, ConditionReconciling and ConditionStalled are what GitOps tools
	// (kstatus, Argo CD) read: Ready is set False from the start so it is never assumed True.
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"
)
