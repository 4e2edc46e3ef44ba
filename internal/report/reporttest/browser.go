// Package reporttest opens report pages in a real browser for tests: headless Chromium from
// Debian (hack/chromium.sh), with its background traffic off, and the colours of what it
// drew. The report's own test and the lab's (a cluster run's report) share it.
package reporttest

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Chromium opens page (a file path) in headless Chromium with args added, and returns its
// stdout; it fails the test when the browser cannot be installed or fails.
func Chromium(t testing.TB, page string, args ...string) string {
	t.Helper()
	bin, err := exec.Command(filepath.Join(testenv.Root(), "hack", "chromium.sh")).Output()
	if err != nil {
		t.Fatalf("hack/chromium.sh: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, strings.TrimSpace(string(bin)), append(append(base, args...), "file://"+page)...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errs.String())
	}
	return out.String()
}

// Colours reads a PNG screenshot and returns the colours (0xRRGGBB) of every step-th pixel
// of every step-th row, and the image's bounds.
func Colours(t testing.TB, shot string, step int) (map[uint32]bool, image.Rectangle) {
	t.Helper()
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	colours := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	return colours, b
}
