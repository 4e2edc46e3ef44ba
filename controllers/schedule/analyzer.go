package schedule

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/changepoint"
	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// Analyzer runs schedules' change-point analyses off the reconcile workers: a year of 20
// targets takes tens of seconds, and a pass must not wait for it. A pass hands it a request
// and returns; when the analysis ends, the result is kept for the schedule's next pass, which
// Events asks for. A manager Runnable (leader only, as the reconcilers), with Workers workers
// over a queue keyed by schedule: a schedule is analysed by one worker at a time, and a
// request made while one is queued or running replaces it (the latest wins).
type Analyzer struct {
	// Workers analyse at once (1 when 0).
	Workers int
	// Analyze is the analysis (analyze when nil); tests slow it down.
	Analyze func(h []historyRun, triage []benchv1.ScheduleTriage) (*history.Report, error)

	once    sync.Once
	queue   workqueue.TypedInterface[types.NamespacedName]
	events  chan event.GenericEvent
	mu      sync.Mutex
	wanted  map[types.NamespacedName]analysisRequest
	results map[types.NamespacedName]analysisResult
	seq     uint64
}

// analysisRequest is what an analysis reads: the history (loaded by the worker: the
// database's year is read off the reconcile worker too) and the triage its alerts follow.
type analysisRequest struct {
	schedule client.Object // for the event that wakes the schedule
	load     func(ctx context.Context) ([]historyRun, error)
	triage   []benchv1.ScheduleTriage
	seq      uint64 // the analyzer's count of requests: which one is the latest
}

// analysisResult is a finished analysis: the history it read and its report, or why not
// (loadErr: the history could not be read; err: the analysis failed).
type analysisResult struct {
	history []historyRun
	report  *history.Report
	loadErr error
	err     error
}

func (a *Analyzer) init() {
	a.once.Do(func() {
		a.queue = workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[types.NamespacedName]{Name: "schedule-analysis"})
		// Buffered: a finished analysis does not wait for the controller to take its event.
		a.events = make(chan event.GenericEvent, 1024)
		a.wanted = map[types.NamespacedName]analysisRequest{}
		a.results = map[types.NamespacedName]analysisResult{}
	})
}

// Events carries one event per finished analysis, for the schedule's controller to enqueue it.
func (a *Analyzer) Events() <-chan event.GenericEvent {
	a.init()
	return a.events
}

// request queues an analysis of the schedule, replacing one not started yet.
func (a *Analyzer) request(key types.NamespacedName, req analysisRequest) {
	a.init()
	a.mu.Lock()
	a.seq++
	req.seq = a.seq
	a.wanted[key] = req
	a.mu.Unlock()
	a.queue.Add(key)
}

// pending says whether an analysis of the schedule is queued or running.
func (a *Analyzer) pending(key types.NamespacedName) bool {
	a.init()
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.wanted[key]
	return ok
}

// take returns the schedule's finished analysis, once.
func (a *Analyzer) take(key types.NamespacedName) (analysisResult, bool) {
	a.init()
	a.mu.Lock()
	defer a.mu.Unlock()
	res, ok := a.results[key]
	delete(a.results, key)
	return res, ok
}

// forget drops what is held for a deleted schedule.
func (a *Analyzer) forget(key types.NamespacedName) {
	a.init()
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.results, key)
}

// Start runs the workers until ctx ends.
func (a *Analyzer) Start(ctx context.Context) error {
	a.init()
	var wg sync.WaitGroup
	for range max(a.Workers, 1) {
		wg.Go(func() {
			for a.next(ctx) {
			}
		})
	}
	<-ctx.Done()
	a.queue.ShutDown()
	wg.Wait()
	return nil
}

// next analyses one queued schedule; false once the queue is shut down.
func (a *Analyzer) next(ctx context.Context) bool {
	key, shutdown := a.queue.Get()
	if shutdown {
		return false
	}
	defer a.queue.Done(key)
	a.mu.Lock()
	req, ok := a.wanted[key]
	a.mu.Unlock()
	if !ok {
		return true
	}
	res := a.run(ctx, req)
	a.mu.Lock()
	// A request made meanwhile is newer: its analysis follows (the queue holds the key
	// again), and this result is dropped.
	latest := a.wanted[key].seq == req.seq
	if latest {
		delete(a.wanted, key)
		a.results[key] = res
	}
	a.mu.Unlock()
	if !latest {
		return true
	}
	select {
	case a.events <- event.GenericEvent{Object: req.schedule}:
	case <-ctx.Done():
	}
	return true
}

func (a *Analyzer) run(ctx context.Context, req analysisRequest) analysisResult {
	h, err := req.load(ctx)
	if err != nil {
		return analysisResult{loadErr: err}
	}
	analyze := a.Analyze
	if analyze == nil {
		analyze = analyzeHistory
	}
	rep, err := analyze(h, req.triage)
	if err != nil {
		return analysisResult{err: fmt.Errorf("change points: %w", err)}
	}
	return analysisResult{history: h, report: rep}
}

// analyzeHistory is the controller's analysis: internal/history's, at its default minimum
// magnitude, each series' alert reading its old level from its newest triaged run on.
func analyzeHistory(h []historyRun, triage []benchv1.ScheduleTriage) (*history.Report, error) {
	return history.Analyze(toRuns(h), history.Options{Detect: changepoint.Options{MinMagnitude: history.DefaultMinMagnitude},
		Floor: triageFloor(triage, h)})
}
