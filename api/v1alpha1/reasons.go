package v1alpha1

// Reasons of a BenchmarkRun's conditions and events, the same in a cluster and in the local
// mode: internal/engine sets them, and docs/cli.md lists what a pipeline reads from them.
// Those the engine sets are listed by engine.Reasons, whose test shows each reachable in
// both modes or says why not.
const (
	ReasonSpecAccepted = "SpecAccepted"
	ReasonInvalidSpec  = "InvalidSpec"
	ReasonPending      = "Pending"

	ReasonMissingDependency = "MissingDependency"
	ReasonInstalled         = "Installed"
	// ReasonInstallFailed: the local mode could not install k6 or a target's toolchain.
	ReasonInstallFailed = "InstallFailed"

	ReasonNotRequested    = "NotRequested"
	ReasonProvisioning    = "Provisioning"
	ReasonDatabaseHealthy = "Healthy"
	ReasonDatabaseTimeout = "DatabaseTimeout"
	// ReasonStartFailed: the local mode could not start PostgreSQL, PgBouncer or a target.
	ReasonStartFailed = "StartFailed"

	ReasonDeploying       = "Deploying"
	ReasonAvailable       = "Available"
	ReasonTargetsTimeout  = "TargetsTimeout"
	ReasonNoImage         = "NoImage"
	ReasonVerifying       = "Verifying"
	ReasonPassed          = "Passed"
	ReasonVerifyFailed    = "VerificationFailed"
	ReasonPoolFree        = "Free"
	ReasonWaitingForPool  = "WaitingForNodePool"
	ReasonTrialsRunning   = "TrialsRunning"
	ReasonAllTrialsRan    = "AllTrialsRan"
	ReasonTrialFailed     = "TrialFailed"
	ReasonSLOMet          = "Met"
	ReasonSLOMissed       = "Missed"
	ReasonSucceeded       = "Succeeded"
	ReasonFailed          = "Failed"
	ReasonProgressing     = "Progressing"
	ReasonCleanedUp       = "CleanedUp"
	ReasonTrialFinished   = "TrialFinished"
	ReasonTrialStarted    = "TrialStarted"
	ReasonDeletingObjects = "DeletingObjects"

	// ReasonInterrupted: the local mode was stopped by a signal; what was measured stands.
	ReasonInterrupted = "Interrupted"
	// ReasonSetupFailed: the local mode could not bring up what its trials need.
	ReasonSetupFailed = "SetupFailed"
	// ReasonCreateRefused: the API server refused an object the run needs (422 Invalid or
	// 400); retrying would not help, so the run fails with the API server's message.
	ReasonCreateRefused = "CreateRefused"
	// ReasonVerifyTimeout: a target's contract checks did not finish within the deadline.
	ReasonVerifyTimeout = "VerificationTimeout"
	// ReasonTrialTimeout: a trial's load did not start, or did not finish, within its deadline.
	ReasonTrialTimeout = "TrialTimeout"
	// ReasonLoadUnschedulable: a pod of a trial's TestRun (initializer, runner or starter)
	// stayed unschedulable past its deadline; also the event while it waits.
	ReasonLoadUnschedulable = "LoadUnschedulable"
	// ReasonRunTimeout: the run went past the operator's maximum run duration.
	ReasonRunTimeout = "RunTimeout"
	// ReasonTargetDrift: a target's Deployment was deleted, scaled down or edited mid-run.
	ReasonTargetDrift = "TargetChanged"
	// ReasonDatabaseDrift: the run's PostgreSQL or PgBouncer went unready, or a pod of theirs
	// was replaced or restarted, while a trial ran.
	ReasonDatabaseDrift = "DatabaseChanged"
	// ReasonAllRequestsFailed: every measured trial had 100% errors; the run is Failed
	// (Complete=False with this reason): nothing a target served was measured.
	ReasonAllRequestsFailed = "AllRequestsFailed"
	// ReasonSeriesBeyondWire: k6's series count answered requests the target's wire never
	// carried; someone else wrote them to Prometheus under the trial's labels.
	ReasonSeriesBeyondWire = "SeriesBeyondWire"
	// ReasonBaselineCompared and ReasonRegressed are the events of the baseline comparison.
	ReasonBaselineCompared = "BaselineCompared"
	ReasonRegressed        = "Regressed"
	// ReasonSearchStep is the event of a capacity search's progress.
	ReasonSearchStep = "SearchStep"
	// ReasonImageNotAllowed: a bring-your-own image is outside the operator's allow-list.
	ReasonImageNotAllowed = "ImageNotAllowed"
	// ReasonProtectedNamespace: the run is in a namespace the operator does not serve
	// (--protected-namespaces, a cluster-wide install).
	ReasonProtectedNamespace = "ProtectedNamespace"
	// ReasonImagePullSecretInvalid: a Secret spec.imagePullSecrets names is missing from the
	// run's namespace, or is not of a pull secret's type.
	ReasonImagePullSecretInvalid = "ImagePullSecretInvalid"
	// ReasonCalibrationSkipped and ReasonCalibrationFailed: the generator floor was not
	// measured (events only; the run goes on without it).
	ReasonCalibrationSkipped = "CalibrationSkipped"
	ReasonCalibrationFailed  = "CalibrationFailed"
	// ReasonNullResponderRemoved: calibration is over and the null responder is deleted
	// (an event).
	ReasonNullResponderRemoved = "NullResponderRemoved"
	// ReasonGeneratorBesideTarget: a trial's runner ran on a node with its target (a
	// Warning event).
	ReasonGeneratorBesideTarget = "GeneratorBesideTarget"
	// ReasonNameConflict: an object the run would create exists and is not the run's.
	ReasonNameConflict = "NameConflict"

	// Reasons of the Conclusive condition.
	//
	// ReasonValidResults: the headline comes from valid rows and no invalid row could beat it.
	ReasonValidResults = "ValidResults"
	// ReasonNoValidResult: the run measured rows, but none of them is valid (every one is
	// flagged: GeneratorBound, MostlyFailed, ...): nothing can be concluded from it.
	ReasonNoValidResult = "NoValidResult"
	// ReasonHeadlineInconclusive: an invalid row of the headline's scenario and load point
	// shows a lower p99 than the best valid row, so the headline cannot be stood behind.
	ReasonHeadlineInconclusive = "HeadlineInconclusive"
	// ReasonInconclusive is Ready's and Stalled's reason for a run that finished its trials
	// but is not Conclusive.
	ReasonInconclusive = "Inconclusive"

	// Reasons of the Regressed condition.
	ReasonSlower              = "Slower"
	ReasonNoRegression        = "NoRegression"
	ReasonBaselineUnavailable = "BaselineUnavailable"
	// ReasonEnvironmentChanged: rows are Slower than a baseline run that ran on other
	// machines or software (status.environment differs), so the shift is not called a
	// regression; a same-run pair (spec.targets[].baselineTarget) has no such doubt.
	ReasonEnvironmentChanged = "EnvironmentChanged"
	// ReasonNoVerdict: rows were compared, but every one is Inconclusive (too few valid
	// repetitions, or too noisy to rule the minimum effect in or out): nothing was shown
	// either way, so the run is neither regressed nor cleared.
	ReasonNoVerdict = "NoVerdict"
)
