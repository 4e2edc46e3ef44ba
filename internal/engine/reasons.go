package engine

import benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"

// Reach says how a reason the engine sets is reached in each mode: the test that shows it
// there, or, for a mode that cannot reach it, why not (starting "not reachable:").
type Reach struct {
	Reason       string
	Cluster      string
	Local        string
	CondOrEvents string // the condition it is a reason of, or "event"
}

// Reasons lists every reason the engine sets, or is given by an executor to set, with the
// tests that show it reached in each mode. TestReasonsAreListedAndReachable keeps it whole:
// a reason the engine's code names is listed, and every test named exists.
var Reasons = []Reach{
	{benchv1.ReasonTrialsRunning, "TestEveryWaitHasADeadline", "not reachable: the local mode writes its status once the run has ended; its progress line says which trial runs", "Complete"},
	{benchv1.ReasonAllTrialsRan, "TestCorpusDecidedAsLocally", "TestCorpusDecidedAsTheOperatorDoes", "Complete"},
	{benchv1.ReasonTrialFailed, "TestFailuresAreExplained", "TestTargetCrashFailsOnlyItsTrial", "Complete"},
	{benchv1.ReasonTrialTimeout, "TestEveryWaitHasADeadline", "not reachable: k6 runs as a child process and ends by itself; a hung k6 is killed by its own --duration and gracefulStop", "Complete"},
	{benchv1.ReasonLoadUnschedulable, "TestStuckOrDeadLoadFailsTheTrial", "not reachable: no scheduler places the local k6", "Complete"},
	{benchv1.ReasonTargetDrift, "TestTargetDriftFailsTheTrial", "not reachable: a local target is a child process; its death is TrialFailed with its last output", "Complete"},
	{benchv1.ReasonDatabaseDrift, "TestDatabaseDriftFailsTheTrial", "not reachable: a lost local database fails the trials that read it (TestDatabaseLossFailsOnlyTheTrialsThatReadIt)", "Complete"},
	{benchv1.ReasonSeriesBeyondWire, "TestWireCaptureToStatus", "TestRecordRefusesSeriesBeyondWire", "Complete"},
	{benchv1.ReasonAllRequestsFailed, "TestAllRequestsFailedIsNotSuccess", "TestAllRequestsFailedFailsTheRun", "Complete"},
	{benchv1.ReasonInterrupted, "not reachable: a cluster run is not interrupted; deleting it removes it", "TestInterruptWritesPartialStatus", "Complete"},
	{benchv1.ReasonSetupFailed, "not reachable: each setup step fails with its own condition (DatabaseReady, TargetsReady, ...)", "TestNoReadyTargetStopsBeforeAnyTrial", "Complete"},
	{benchv1.ReasonSLOMet, "TestCapacitySearchThroughTheReconciler", "TestCapacitySearchFindsAKnownCapacity", "SLOMet"},
	{benchv1.ReasonSLOMissed, "TestCorpusDecidedAsLocally", "TestCorpusDecidedAsTheOperatorDoes", "SLOMet"},
	{benchv1.ReasonValidResults, "TestCorpusDecidedAsLocally", "TestCorpusDecidedAsTheOperatorDoes", "Conclusive"},
	{benchv1.ReasonNoValidResult, "TestCorpusDecidedAsLocally", "TestGeneratorBoundRowIsInvalid", "Conclusive"},
	{benchv1.ReasonHeadlineInconclusive, "TestConclusive", "TestConclusive", "Conclusive"},
	{benchv1.ReasonSucceeded, "TestCorpusDecidedAsLocally", "TestCorpusDecidedAsTheOperatorDoes", "Ready"},
	{benchv1.ReasonFailed, "TestFailuresAreExplained", "TestAllRequestsFailedFailsTheRun", "Ready"},
	{benchv1.ReasonInconclusive, "TestCorpusDecidedAsLocally", "TestGeneratorBoundRowIsInvalid", "Ready"},
	{benchv1.ReasonPending, "TestKstatusReadsEveryPhase", "not reachable: the local mode reports its run only once it has ended", "Ready"},
	{benchv1.ReasonProgressing, "TestKstatusReadsEveryPhase", "not reachable: the local mode reports its run only once it has ended", "Reconciling"},
	{benchv1.ReasonCalibrationFailed, "TestAFailedFloorTrialStopsBeforeTheNextTrial", "TestStepDeadlinesAndFailures", "event"},
	{benchv1.ReasonSearchStep, "TestCapacitySearchThroughTheReconciler", "TestCapacitySearchFindsAKnownCapacity", "event"},
	{benchv1.ReasonTrialStarted, "TestEveryWaitHasADeadline", "not reachable: the local mode prints progress, not each trial's start", "event"},
	{benchv1.ReasonSlower, "TestSameRunPairThroughTheReconciler", "TestRegressionVerdicts", "Regressed"},
	{benchv1.ReasonBaselineUnavailable, "TestBaselineVerdictThroughTheReconciler", "TestBaselineFromSpecOrFlag", "Regressed"},
	{benchv1.ReasonEnvironmentChanged, "TestCompareAcrossEnvironments", "TestCompareAcrossEnvironments", "Regressed"},
	{benchv1.ReasonNoVerdict, "TestCompareAcrossEnvironments", "TestRegressionVerdicts", "Regressed"},
	{benchv1.ReasonRegressed, "TestSameRunPairThroughTheReconciler", "not reachable: the local mode prints the verdict with the outcome, not as a note", "event"},
	{benchv1.ReasonBaselineCompared, "TestBaselineVerdictThroughTheReconciler", "not reachable: the local mode prints the verdict with the outcome, not as a note", "event"},
	{benchv1.ReasonTrialFinished, "TestGeneratorFloorInTheCluster", "not reachable: the local mode prints progress, not each trial's end", "event"},
}
