// Package preset loads the target manifests, targets/<name>/target.yaml, whose format is fixed
// by targets/CONTRACT.md.
package preset

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// FileName is the manifest's name inside a target folder.
const FileName = "target.yaml"

// Preset is one target.yaml.
type Preset struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Language    Component  `json:"language"`
	Runtime     Component  `json:"runtime"`
	Framework   Component  `json:"framework"`
	Endpoints   []Endpoint `json:"endpoints"`
	Image       string     `json:"image"`
	// KeepAlive false declares a server that closes every connection after its response by
	// design (gunicorn's sync worker); absent means keep-alive is supported, as the contract asks.
	KeepAlive  *bool  `json:"keepAlive,omitempty"`
	Dockerfile string `json:"dockerfile"`
	Local      Local  `json:"local"`

	// Dir is the target folder the manifest was read from (not part of the file).
	Dir string `json:"-"`
}

// Component names a language, runtime or framework and its version.
type Component struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Local says how the target runs on this machine.
type Local struct {
	// Install is a repo-relative script run as `bash <repo>/<install> <target dir>`.
	Install string `json:"install"`
	// Start is the argv run in the target folder; ${VAR} expands from the environment.
	Start []string `json:"start"`
	// Unsupported, when set, is why the target cannot run on this machine.
	Unsupported string `json:"unsupported"`
}

// KeepsAlive reports whether the target keeps connections open between requests.
func (p *Preset) KeepsAlive() bool { return p.KeepAlive == nil || *p.KeepAlive }

// Supports reports whether the target lists the endpoint.
func (p *Preset) Supports(e Endpoint) bool {
	for _, have := range p.Endpoints {
		if have == e {
			return true
		}
	}
	return false
}

// Parse decodes a manifest strictly (an unknown field is an error naming it) and validates it.
// dirName is the folder the manifest belongs to; the manifest's name must equal it.
func Parse(data []byte, dirName string) (*Preset, error) {
	var p Preset
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		// The YAML is decoded through JSON; that detail only clutters the message.
		msg := strings.TrimPrefix(err.Error(), "error unmarshaling JSON: while decoding JSON: ")
		return nil, errors.New(strings.TrimPrefix(msg, "json: "))
	}
	if err := p.validate(dirName); err != nil {
		return nil, err
	}
	return &p, nil
}

// Load reads and validates dir/target.yaml.
func Load(dir string) (*Preset, error) {
	file := filepath.Join(dir, FileName)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p, err := Parse(data, filepath.Base(dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if _, err := os.Stat(filepath.Join(dir, p.Dockerfile)); err != nil {
		return nil, fmt.Errorf("%s: dockerfile %q: %w", file, p.Dockerfile, err)
	}
	p.Dir = dir
	return p, nil
}

// LoadAll loads every <targetsDir>/*/target.yaml, sorted by name. Folders without a manifest
// are ignored; every invalid manifest is reported, not only the first.
func LoadAll(targetsDir string) ([]*Preset, error) {
	entries, err := os.ReadDir(targetsDir)
	if err != nil {
		return nil, err
	}
	var out []*Preset
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(targetsDir, e.Name())
		if _, err := os.Stat(filepath.Join(dir, FileName)); errors.Is(err, os.ErrNotExist) {
			continue
		}
		p, err := Load(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errors.Join(errs...)
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

func (p *Preset) validate(dirName string) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	switch {
	case p.Name == "":
		bad("name: required")
	case !dnsLabel.MatchString(p.Name):
		bad("name: %q is not a DNS label (lowercase letters, digits, '-')", p.Name)
	case dirName != "" && p.Name != dirName:
		bad("name: %q must equal its folder name %q", p.Name, dirName)
	}
	if strings.TrimSpace(p.Description) == "" {
		bad("description: required")
	}
	for field, c := range map[string]Component{"language": p.Language, "runtime": p.Runtime, "framework": p.Framework} {
		if c.Name == "" {
			bad("%s.name: required", field)
		}
		if c.Version == "" {
			bad("%s.version: required", field)
		}
	}
	if len(p.Endpoints) == 0 {
		bad("endpoints: at least one is required")
	}
	seen := map[Endpoint]bool{}
	for i, e := range p.Endpoints {
		if _, err := ParseEndpoint(string(e)); err != nil {
			bad("endpoints[%d]: %v", i, err)
		}
		if seen[e] {
			bad("endpoints[%d]: %q is listed twice", i, e)
		}
		seen[e] = true
	}
	if p.Image == "" {
		bad("image: required")
	}
	if err := checkRelative(p.Dockerfile); err != nil {
		bad("dockerfile: %v", err)
	}
	if p.Local.Install != "" {
		if err := checkRelative(p.Local.Install); err != nil {
			bad("local.install: %v", err)
		}
	}
	if len(p.Local.Start) == 0 || p.Local.Start[0] == "" {
		bad("local.start: a non-empty argv is required")
	}
	for i, arg := range p.Local.Start {
		if _, err := Expand(arg, nil); err != nil && !errors.Is(err, errUndefined) {
			bad("local.start[%d]: %v", i, err)
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

// checkRelative accepts a clean relative path that stays inside its base folder.
func checkRelative(p string) error {
	switch {
	case p == "":
		return errors.New("required")
	case path.IsAbs(p) || filepath.IsAbs(p):
		return fmt.Errorf("%q must be relative", p)
	case path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("%q must be a clean path inside its folder", p)
	}
	return nil
}
