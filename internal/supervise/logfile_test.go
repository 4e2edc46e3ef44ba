package supervise

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A log file in a folder another user writes (PostgreSQL's is the postgres user's) may be
// a planted link: root never appends through a symbolic link, to a second name of another
// file, or into a FIFO; the process is not started and the file it pointed to is untouched.
func TestLogFileRefusesPlantedLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink, hardlink, fifo := filepath.Join(dir, "sym.log"), filepath.Join(dir, "hard.log"), filepath.Join(dir, "fifo.log")
	if err := os.Symlink(victim, symlink); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(victim, hardlink); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, says := range map[string]string{symlink: "symbolic link", hardlink: "2 links", fifo: "no such device"} {
		spec := sh("echo appended")
		spec.LogFile = path
		done := make(chan error, 1)
		go func() {
			p, err := Start(spec)
			if err == nil {
				<-p.Done()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), says) {
				t.Errorf("%s: %v, want a refusal saying %q", filepath.Base(path), err, says)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: opening the log hangs", filepath.Base(path))
		}
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Errorf("the linked file now holds %q", got)
	}

	// A plain log still works, and appends.
	plain := filepath.Join(dir, "plain.log")
	for i := 0; i < 2; i++ {
		spec := sh("echo line")
		spec.LogFile = plain
		p, err := Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Wait(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		<-p.copied // the output copier has written the file
	}
	if got, _ := os.ReadFile(plain); strings.Count(string(got), "line\n") != 2 {
		t.Errorf("plain log holds %q, want two lines", got)
	}
}
