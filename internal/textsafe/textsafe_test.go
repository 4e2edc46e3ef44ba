package textsafe

import (
	"bytes"
	"testing"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\n":           "plain\ttext\n",
		"go 1.9ms @ 200/s — ok ✓": "go 1.9ms @ 200/s — ok ✓",
		"\x1b]0;pwned\x07":        `\x1b]0;pwned\x07`,
		"\x1b[2J\x1b[H":           `\x1b[2J\x1b[H`,
		"over\rwrite\b":           `over\x0dwrite\x08`,
		"c1 \u009b31m":            `c1 \u009b31m`,
		"bidi \u202etxt.exe":      `bidi \u202etxt.exe`,
		"bad \xff byte":           `bad \xff byte`,
		"del \x7f":                `del \x7f`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// A character split across writes passes whole; a control split from its sequence is
// still escaped.
func TestWriterAcrossWrites(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	for _, p := range [][]byte{[]byte("a \xe2"), []byte("\x9c\x93 b \xc2"), []byte("\x9b c\x1b"), []byte("[2J\n")} {
		if n, err := w.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if got, want := out.String(), `a ✓ b \u009b c\x1b[2J`+"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
