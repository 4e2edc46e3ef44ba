package supervise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Account is a Unix user to run a process as.
type Account struct {
	Name     string
	UID, GID uint32
}

// LookupAccount is the Unix user name; missing is the error when there is none (how to
// create it), since the callers know which user they need and why.
func LookupAccount(name, missing string) (*Account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, errors.New(missing)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &Account{Name: u.Username, UID: uint32(uid), GID: uint32(gid)}, nil
}

// SearchableBy checks that acct can reach dir and list it: every folder on the way needs
// the search bit for it (as owner, its group, or others; the process gets no other groups).
func SearchableBy(acct *Account, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := abs; ; d = filepath.Dir(d) {
		want := os.FileMode(0o1) // search
		if d == abs {
			want = 0o5 // read and search
		}
		if err := PermittedTo(acct, d, want); err != nil {
			return err
		}
		if d == "/" {
			return nil
		}
	}
}

// RunnableBy checks that acct may run program (argv[0] as started in dir: a path, or a name
// looked up on PATH) and, through its symlinks, the file it resolves to: a venv's python
// may point into root's home (pyenv). nil acct: nothing to check.
func RunnableBy(acct *Account, dir, program string) error {
	if acct == nil {
		return nil
	}
	path := program
	switch {
	case !strings.Contains(program, "/"):
		found, err := exec.LookPath(program)
		if err != nil {
			return err
		}
		path = found
	case !filepath.IsAbs(program):
		path = filepath.Join(dir, program)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	for _, f := range []string{path, real} {
		if err := SearchableBy(acct, filepath.Dir(f)); err != nil {
			return fmt.Errorf("%s: %w", program, err)
		}
		if err := PermittedTo(acct, f, 0o5); err != nil {
			return fmt.Errorf("%s: %w", program, err)
		}
	}
	// A script's interpreter (.venv/bin/gunicorn starts .venv/bin/python) must be runnable too.
	if interp := shebang(real); interp != "" && interp != program {
		return RunnableBy(acct, dir, interp)
	}
	return nil
}

// shebang is the interpreter path of a "#!" script, or "".
func shebang(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if fields := strings.Fields(rest); ok && len(fields) > 0 && filepath.IsAbs(fields[0]) {
		return fields[0]
	}
	return ""
}

// PermittedTo checks the rwx bits (want, as in 0o5) that apply to acct on path.
func PermittedTo(acct *Account, path string, want os.FileMode) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner information", path)
	}
	mode := st.Mode().Perm()
	bits := mode & 0o7
	switch {
	case sys.Uid == acct.UID:
		bits = mode >> 6 & 0o7
	case sys.Gid == acct.GID:
		bits = mode >> 3 & 0o7
	}
	if bits&want != want {
		return fmt.Errorf("%s (mode %v, owner %d:%d) is not readable/searchable by %s (uid %d): make it world-readable (chmod o+rX) or run gauntlet as a user who owns it",
			path, mode, sys.Uid, sys.Gid, acct.Name, acct.UID)
	}
	return nil
}

// GiveTo makes paths owned by the account (no-op without one): a server run as another
// user must own its working folder and files.
func GiveTo(acct *Account, paths ...string) error {
	if acct == nil {
		return nil
	}
	for _, p := range paths {
		if err := os.Chown(p, int(acct.UID), int(acct.GID)); err != nil {
			return err
		}
	}
	return nil
}
