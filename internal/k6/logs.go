package k6

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"time"
)

// logWatcher passes k6's stderr through, notes when the start marker appears and keeps
// the last lines for error messages.
type logWatcher struct {
	out     io.Writer
	marker  string
	started chan time.Time

	mu      sync.Mutex
	partial []byte
	last    []string
	seen    bool
}

const keptLines = 20

func newLogWatcher(out io.Writer, marker string) *logWatcher {
	return &logWatcher{out: out, marker: marker, started: make(chan time.Time, 1)}
}

func (w *logWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.line(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
	_, _ = w.out.Write(p) // a failing log sink must not fail the run
	return len(p), nil
}

func (w *logWatcher) line(l string) {
	if !w.seen && strings.Contains(l, w.marker) {
		w.seen = true
		w.started <- time.Now()
	}
	w.last = append(w.last, l)
	if len(w.last) > keptLines {
		w.last = w.last[1:]
	}
}

// tail is the last lines of stderr, for an error message.
func (w *logWatcher) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := append([]string(nil), w.last...)
	if len(w.partial) > 0 {
		lines = append(lines, string(w.partial))
	}
	if len(lines) == 0 {
		return "(k6 wrote nothing on stderr)"
	}
	return strings.Join(lines, "\n")
}

// lockedWriter serialises k6's stdout and stderr, copied by separate goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
