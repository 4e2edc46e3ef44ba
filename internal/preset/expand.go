package preset

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

var (
	varName      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	errUndefined = errors.New("undefined variable")
)

// Expand replaces every ${VAR} in s with env[VAR]. Only the braced form is recognised, so a
// lone '$' stays as written (argv is not a shell). An unknown or malformed reference is an error.
func Expand(s string, env map[string]string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unclosed ${ in %q", s)
		}
		name := s[i+2 : i+end]
		if !varName.MatchString(name) {
			return "", fmt.Errorf("bad variable name %q in %q", name, s)
		}
		v, ok := env[name]
		if !ok {
			return "", fmt.Errorf("%w ${%s} in %q", errUndefined, name, s)
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

// ExpandStart expands local.start against env.
func (p *Preset) ExpandStart(env map[string]string) ([]string, error) {
	out := make([]string, len(p.Local.Start))
	for i, arg := range p.Local.Start {
		v, err := Expand(arg, env)
		if err != nil {
			return nil, fmt.Errorf("%s: local.start[%d]: %w", p.Name, i, err)
		}
		out[i] = v
	}
	return out, nil
}
