package local

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/textsafe"
)

// trialOverhead is a trial's time beyond warmup and window (k6 start, summary), used to
// estimate what remains until trials have been timed.
const trialOverhead = 1500 * time.Millisecond

// progress prints "trial k/n target scenario @ load, elapsed, remaining" on stderr: redrawn
// in place every second on a terminal, one line per trial otherwise (logs, tests).
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool
	run     *benchv1.BenchmarkRun
	current int    // trial index, -1 when none runs
	head    string // "trial k/n target scenario @ load rep r", fixed at begin
	after   int    // runnable trials after the current one
	began   time.Time
	timed   []time.Duration // how long finished trials took
	drawn   bool            // a live line is on screen
	quit    chan struct{}
	done    sync.WaitGroup
}

func newProgress(w io.Writer, live bool, run *benchv1.BenchmarkRun) *progress {
	p := &progress{w: w, live: live, run: run, current: -1, quit: make(chan struct{})}
	if live {
		p.done.Add(1)
		go func() {
			defer p.done.Done()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				case <-p.quit:
					return
				}
			}
		}()
	}
	return p
}

func (p *progress) begin(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Read the trials here, under the runner's goroutine: the redraw ticker must not.
	trials := p.run.Status.Trials
	t := trials[i]
	unit := "/s"
	if p.run.Spec.Load.Model == benchv1.LoadModelClosed {
		unit = " conn"
	}
	runnable, k := 0, 0
	for j, tr := range trials {
		if tr.Phase != benchv1.TrialSkipped {
			runnable++
			if j <= i {
				k++
			}
		}
	}
	p.current, p.began, p.after = i, time.Now(), runnable-k
	p.head = fmt.Sprintf("trial %d/%d  %s  %s @ %d%s  rep %d", k, runnable, t.Target, t.Scenario, t.LoadPoint, unit, t.Repetition)
	if t.SearchStep > 0 {
		p.head = fmt.Sprintf("trial %d/%d  %s  %s @ %d%s  search step %d", k, runnable, t.Target, t.Scenario, t.LoadPoint, unit, t.SearchStep)
	}
	p.draw()
}

func (p *progress) end(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.run.Status.Trials[i]; t.Phase == benchv1.TrialSucceeded || t.Phase == benchv1.TrialFailed {
		p.timed = append(p.timed, time.Since(p.began))
	}
	p.current = -1
}

// note prints a message line, keeping the live line below it.
func (p *progress) note(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintln(p.w, textsafe.String(fmt.Sprintf("gauntlet: "+format, args...))) // the line may quote a target
	if p.live {
		p.draw()
	}
}

func (p *progress) stop() {
	close(p.quit)
	p.done.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *progress) clear() {
	if p.live && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// draw writes the progress line (without a newline); the caller holds mu.
func (p *progress) draw() {
	if p.current < 0 {
		return
	}
	elapsed := time.Since(p.run.Status.StartedAt.Time)
	line := textsafe.String(fmt.Sprintf("%s  elapsed %s  remaining ~%s", p.head, clock(elapsed), clock(p.remaining(p.after))))
	if p.live {
		p.clear()
		fmt.Fprint(p.w, line)
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, "gauntlet: "+line)
}

// remaining estimates the time left: the current trial's rest plus the trials after it,
// each taking the mean of those timed so far (or warmup + window + overhead at first).
func (p *progress) remaining(after int) time.Duration {
	per := p.run.Spec.Load.Warmup.Std() + p.run.Spec.Load.Duration.Std() + trialOverhead
	if len(p.timed) > 0 {
		var sum time.Duration
		for _, d := range p.timed {
			sum += d
		}
		per = sum / time.Duration(len(p.timed))
	}
	rest := max(per-time.Since(p.began), 0)
	return rest + time.Duration(after)*per
}

// clock prints a duration as 1h02m03s, 2m05s or 7s.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%dh%02dm%02ds", h, m, s)
	} else if m > 0 {
		fmt.Fprintf(&b, "%dm%02ds", m, s)
	} else {
		fmt.Fprintf(&b, "%ds", s)
	}
	return b.String()
}
