package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

// sharedKit is the folder beside the targets that their code imports (targets/_lib: the
// Node and Python contract kits), linked by relative paths.
const sharedKit = "_lib"

// stageTarget gives acct a copy of a target's folder, and of the shared kit beside it, in a
// fresh folder it may read but not write, for a clone it cannot reach: one in a private
// folder such as root's home or a `mktemp -d`. Only those two folders are copied, with their
// relative layout (npm links the kit as ../../_lib/node), so the target still cannot read
// the rest of the user's files, and nobody's permissions are loosened. It returns the
// staged copy of dir and the folder to remove when the target stops.
func stageTarget(acct *supervise.Account, dir string) (staged, cleanup string, err error) {
	root, err := os.MkdirTemp("", "gauntlet-stage-")
	if err != nil {
		return "", "", err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(root)
		}
	}()
	if err := os.Chmod(root, 0o755); err != nil {
		return "", "", err
	}
	for _, name := range []string{sharedKit, filepath.Base(dir)} {
		src := filepath.Join(filepath.Dir(dir), name)
		if _, err := os.Lstat(src); name == sharedKit && errors.Is(err, fs.ErrNotExist) {
			continue // a target folder outside the repository's layout has no kit beside it
		}
		if err := os.CopyFS(filepath.Join(root, name), os.DirFS(src)); err != nil {
			return "", "", fmt.Errorf("copying %s for %s: %w", src, acct.Name, err)
		}
	}
	staged = filepath.Join(root, filepath.Base(dir))
	if err := supervise.SearchableBy(acct, staged); err != nil {
		return "", "", fmt.Errorf("the copy in %s: %w (set TMPDIR to a folder %s can search)", root, err, acct.Name)
	}
	return staged, root, nil
}
