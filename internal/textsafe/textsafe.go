// Package textsafe makes text from runs, targets and files safe to print on a terminal.
// Status messages, trial messages and history files carry text a tenant or a target
// chose; printed raw, an escape sequence in it could retitle the terminal, clear the
// screen or rewrite earlier lines. Control characters other than tab and newline, the C1
// controls, Unicode's bidirectional overrides and bytes that are not UTF-8 are shown as
// Go-style escapes (\x1b, \u202e) instead.
package textsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// unsafe says whether r must not reach a terminal as it is.
func unsafe(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f: // C0 controls (ESC, BEL, CR, backspace) and DEL
		return true
	case r >= 0x80 && r <= 0x9f: // C1 controls (CSI, OSC as single characters)
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidirectional overrides
		return true
	}
	return false
}

func escape(r rune) string {
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// String returns s with every unsafe character escaped.
func String(s string) string {
	if !needs(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafe(r):
			b.WriteString(escape(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needs(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafe(r) {
			return true
		}
		i += n
	}
	return false
}

// Writer escapes what is written through it (String), a character split across two
// writes included.
type Writer struct {
	w       io.Writer
	pending []byte // the start of a UTF-8 sequence the last write ended in
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports p as written in full when w took it all.
func (x *Writer) Write(p []byte) (int, error) {
	data := p
	if len(x.pending) > 0 {
		data = append(x.pending, p...)
		x.pending = nil
	}
	// Keep an incomplete sequence at the end for the next write.
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	if cut < len(data) {
		x.pending = append([]byte(nil), data[cut:]...)
	}
	if _, err := io.WriteString(x.w, String(string(data[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap is the writer underneath, for a caller that writes its own control sequences
// (a live progress line) and escapes its text itself.
func (x *Writer) Unwrap() io.Writer { return x.w }
