package local

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

// nullResponder is the running null responder: the calibration trials' target.
type nullResponder struct {
	proc *supervise.Process
	home string // a copy of the program the target user may run, removed on stop ("": none)
	port int
	url  string
}

// skipCalibration marks every calibration trial skipped, with why.
func skipCalibration(trials []benchv1.Trial, why string) {
	for i := range trials {
		if trials[i].Calibration && trials[i].Phase == benchv1.TrialPending {
			trials[i].Phase, trials[i].Message = benchv1.TrialSkipped, why
		}
	}
}

// startNullResponder starts the null responder on the target side's CPUs and waits until
// it answers.
func (r *runner) startNullResponder(ctx context.Context) (*nullResponder, error) {
	port, err := loopback.FreePort(r.opts.Ports)
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	argv := append(append([]string{}, r.opts.NullResponder...), "--listen", addr)
	// It listens on a port like a target, so it drops root like one.
	acct, err := targetAccount()
	if err != nil {
		return nil, err
	}
	home, err := runnableCopy(acct, argv)
	if err != nil {
		return nil, fmt.Errorf("null responder: %w", err)
	}
	proc, err := supervise.Start(supervise.Spec{Name: "null responder", Argv: argv, Env: []string{}, RunAs: acct, CPUs: r.cpus.target,
		LogFile: filepath.Join(r.opts.OutDir, "logs", "null-responder.log")})
	if err != nil {
		_ = removeHome(home)
		return nil, err
	}
	n := &nullResponder{proc: proc, home: home, port: port, url: "http://" + addr}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(n.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return n, nil
			}
		}
		select {
		case <-proc.Done():
			return nil, fmt.Errorf("null responder exited: %v\n%s", proc.ExitErr(), supervise.Indent(proc.Tail()))
		case <-ctx.Done():
			_ = proc.Stop(syscall.SIGTERM, time.Second)
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = proc.Stop(syscall.SIGTERM, time.Second)
			return nil, fmt.Errorf("null responder did not answer on %s within 10s", addr)
		}
	}
}

// runCalibration drives a trial's plan against the null responder: k6's figures there are
// the generator floor of that scenario and load point (results.GeneratorNoise reads it).
func (r *runner) runCalibration(ctx context.Context, t *benchv1.Trial) {
	fail := func(err error) {
		engine.FailTrial(r.run, t, engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: err.Error()}, r.notify)
	}
	if r.null == nil {
		n, err := r.startNullResponder(ctx)
		if err != nil {
			if ctx.Err() == nil {
				fail(err)
			}
			return
		}
		r.null = n
	}
	x, err := r.prepareTrial(t, r.null.url)
	if err != nil {
		fail(err)
		return
	}
	defer x.log.Close()
	engine.Begin(t, "", r.notify)
	o := engine.Observation{Subject: "k6", Created: time.Now(), Exited: true}
	capture := r.startWire(r.null.port)
	res, err := x.load(ctx)
	w := r.stopWire(capture, x.plan)
	if ctx.Err() != nil {
		engine.Requeue(t, "interrupted before the trial finished; not measured")
		return
	}
	if err != nil {
		fail(err)
		return
	}
	select {
	case o.Started = <-x.marker.seen:
	default:
	}
	m := measurementOf(res)
	m.Wire = w
	m.GeneratorCPULimitMillicores = x.limit
	r.finishTrial(t, o, m, nil)
}

// stopNullResponder stops the null responder if it was started.
func (r *runner) stopNullResponder() error {
	if r.null == nil {
		return nil
	}
	err := r.null.proc.Stop(syscall.SIGTERM, 5*time.Second)
	if rmErr := removeHome(r.null.home); err == nil {
		err = rmErr
	}
	r.null = nil
	return err
}

// runnableCopy makes argv[0] runnable by acct: when acct cannot reach it (a CLI built into a
// private temporary folder), the program is copied into a folder of acct's own and argv[0]
// rewritten; that folder is returned for removal ("" when nothing was copied).
func runnableCopy(acct *supervise.Account, argv []string) (string, error) {
	if acct == nil || supervise.RunnableBy(acct, "", argv[0]) == nil {
		return "", nil
	}
	src, err := exec.LookPath(argv[0])
	if err != nil {
		return "", err
	}
	home, err := os.MkdirTemp("", "gauntlet-null-")
	if err != nil {
		return "", err
	}
	dst := filepath.Join(home, filepath.Base(src))
	if err := copyExecutable(src, dst); err != nil {
		_ = os.RemoveAll(home)
		return "", err
	}
	if err := os.Chmod(home, 0o755); err != nil {
		_ = os.RemoveAll(home)
		return "", err
	}
	if err := supervise.RunnableBy(acct, "", dst); err != nil {
		_ = os.RemoveAll(home)
		return "", err
	}
	argv[0] = dst
	return home, nil
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func removeHome(home string) error {
	if home == "" {
		return nil
	}
	return os.RemoveAll(home)
}
