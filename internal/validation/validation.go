// Package validation checks BenchmarkRun (and BenchmarkSchedule) documents offline with the
// same machinery the API server uses for custom resources: the generated CRD's structural
// schema, its defaults, OpenAPI validation, list-type rules and CEL rules. There is no
// second hand-written copy.
package validation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/config/crd"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// Validator validates documents of one kind against its embedded CRD; a Validator of
// BenchmarkRuns may also take BenchmarkSchedules (NewWithSchedules).
type Validator struct {
	kind       string
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *cel.Validator
	schedules  *Validator
}

// New builds a Validator of BenchmarkRuns from the CRD generated into config/crd/bases.
func New() (*Validator, error) {
	return FromCRD(crd.BenchmarkRun)
}

// NewWithSchedules builds a Validator of BenchmarkRuns that also takes BenchmarkSchedules
// (gauntlet validate): their own fields as the API server and the schedule controller
// check them, and their template as a BenchmarkRun.
func NewWithSchedules() (*Validator, error) {
	v, err := New()
	if err != nil {
		return nil, err
	}
	if v.schedules, err = FromCRD(crd.BenchmarkSchedule); err != nil {
		return nil, err
	}
	return v, nil
}

// FromCRD builds a Validator from a CRD manifest (its v1alpha1 version).
func FromCRD(manifest []byte) (*Validator, error) {
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(manifest, &def); err != nil {
		return nil, fmt.Errorf("reading the CRD: %w", err)
	}
	var props *apiextensionsv1.JSONSchemaProps
	for _, v := range def.Spec.Versions {
		if v.Name == benchv1.GroupVersion.Version && v.Schema != nil {
			props = v.Schema.OpenAPIV3Schema
		}
	}
	if props == nil {
		return nil, fmt.Errorf("the CRD has no schema for %s", benchv1.GroupVersion.Version)
	}
	internal := &apiextensionsinternal.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, internal, nil); err != nil {
		return nil, fmt.Errorf("converting the CRD schema: %w", err)
	}
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, fmt.Errorf("the CRD schema is not structural: %w", err)
	}
	schemaValidator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return nil, fmt.Errorf("building the schema validator: %w", err)
	}
	return &Validator{
		kind:       def.Spec.Names.Kind,
		structural: structural,
		schema:     schemaValidator,
		cel:        cel.NewValidator(structural, true, celconfig.PerCallLimit),
	}, nil
}

// Document is one BenchmarkRun or BenchmarkSchedule read from a file, or the reasons it is
// invalid.
type Document struct {
	Index    int                        // position in a multi-document file, from 0
	Meta     string                     // metadata.name as written, for messages
	Run      *benchv1.BenchmarkRun      // defaulted, set only when Errors is empty
	Schedule *benchv1.BenchmarkSchedule // defaulted, for a schedule, set only when Errors is empty
	Errors   field.ErrorList
}

// Name is the document's metadata.name, or its position when it has none.
func (d Document) Name() string {
	if d.Meta != "" {
		return d.Meta
	}
	return fmt.Sprintf("document %d", d.Index+1)
}

// ReadAll validates every YAML or JSON document in r. The error is for unreadable input;
// invalid documents are reported in their Document.
func (v *Validator) ReadAll(ctx context.Context, r io.Reader) ([]Document, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var docs []Document
	for i := 0; ; {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return docs, fmt.Errorf("reading document %d: %w", i+1, err)
		}
		if j, err := yaml.YAMLToJSON(raw); err == nil && bytes.Equal(bytes.TrimSpace(j), []byte("null")) {
			continue // empty or comment-only document
		}
		doc := v.Validate(ctx, raw)
		doc.Index = i
		docs = append(docs, doc)
		i++
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("no %s document found", v.kinds())
	}
	return docs, nil
}

// Validate checks one document the way the API server checks a create request.
func (v *Validator) Validate(ctx context.Context, raw []byte) Document {
	fail := func(errs ...*field.Error) Document { return Document{Errors: errs} }
	jsonData, err := yaml.YAMLToJSONStrict(raw)
	if err != nil {
		return fail(field.Invalid(field.NewPath(""), "", "not valid YAML: "+err.Error()))
	}
	obj := map[string]interface{}{}
	if err := utiljson.Unmarshal(jsonData, &obj); err != nil {
		return fail(field.Invalid(field.NewPath(""), "", "not a YAML or JSON object: "+err.Error()))
	}
	meta, _ := obj["metadata"].(map[string]interface{})
	name, _ := meta["name"].(string)
	if errs := v.checkTypeMeta(obj); len(errs) > 0 {
		return Document{Meta: name, Errors: errs}
	}
	if kind, _ := obj["kind"].(string); kind == "BenchmarkSchedule" {
		return v.validateSchedule(ctx, obj, name)
	}
	if errs := v.admit(ctx, obj); len(errs) > 0 {
		return Document{Meta: name, Errors: errs}
	}

	run := &benchv1.BenchmarkRun{}
	defaulted, _ := json.Marshal(obj)
	if err := json.Unmarshal(defaulted, run); err != nil {
		return fail(field.Invalid(field.NewPath(""), "", "decoding the defaulted object: "+err.Error()))
	}
	if errs := append(plan.CheckResources(&run.Spec), specs.CheckSpec(&run.Spec)...); len(errs) > 0 {
		return Document{Meta: name, Errors: errs}
	}
	return Document{Meta: name, Run: run}
}

// admit is the API server's verdict on obj, of v's kind, on create: unknown fields (strict
// decoding: what pruning would drop is a field the API does not have), the name and
// metadata, the schema, list types and CEL rules. obj is defaulted in place.
func (v *Validator) admit(ctx context.Context, obj map[string]interface{}) field.ErrorList {
	var errs field.ErrorList
	for _, p := range structuralpruning.PruneWithOptions(runtime.DeepCopyJSON(obj), v.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}) {
		errs = append(errs, field.Forbidden(field.NewPath(p), "unknown field"))
	}
	structuraldefaulting.Default(obj, v.structural)
	errs = append(errs, checkName(obj)...)
	errs = append(errs, checkMetadata(obj, v.kind)...)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, v.schema)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, v.structural, obj)...)
	// As the API server: no CEL rule runs on an object the schema refused for a wrong type
	// or a missing, unsupported or too long value; a rule reading the bad value would only
	// fail on it again ("invalid data, expected string, got bool"), without naming why.
	blocking := slices.ContainsFunc(errs, func(e *field.Error) bool {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
		return false
	})
	if !blocking {
		celErrs, _ := v.cel.Validate(ctx, nil, v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return explainYAMLBooleans(errs, yamlBooleans(v.structural, obj, nil))
}

// yamlBooleans are the booleans where the schema wants a string. YAML 1.1 readers
// (sigs.k8s.io/yaml, so kubectl and this package too) take unquoted on, off, yes, no, y, n,
// true and false as booleans: `preparedStatements: off` arrives as false, and the schema's own
// errors ("must be of type string", "Unsupported value: false") do not say why. Each gets
// an error that does, and says what to write.
func yamlBooleans(s *structuralschema.Structural, value interface{}, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	switch value := value.(type) {
	case bool:
		if s.Type != "string" {
			return nil
		}
		msg := "a YAML boolean, not a string: unquoted, YAML 1.1 reads on, off, yes and no as true or false; "
		if s.ValueValidation != nil && len(s.ValueValidation.Enum) > 0 {
			var allowed []string
			for _, e := range s.ValueValidation.Enum {
				allowed = append(allowed, fmt.Sprintf("%q", e.Object))
			}
			msg += "write one of " + strings.Join(allowed, ", ")
		} else {
			msg += "quote the value"
		}
		return field.ErrorList{field.Invalid(p, value, msg)}
	case map[string]interface{}:
		var errs field.ErrorList
		for _, k := range slices.Sorted(maps.Keys(value)) {
			if prop, ok := s.Properties[k]; ok {
				errs = append(errs, yamlBooleans(&prop, value[k], p.Child(k))...)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
				// A map's keys are named as the schema validator names them: .key, not [key].
				errs = append(errs, yamlBooleans(s.AdditionalProperties.Structural, value[k], p.Child(k))...)
			}
		}
		return errs
	case []interface{}:
		var errs field.ErrorList
		for i, item := range value {
			errs = append(errs, yamlBooleans(s.Items, item, p.Index(i))...)
		}
		return errs
	}
	return nil
}

// explainYAMLBooleans puts each boolean's explanation in place of the schema's errors on
// the same field.
func explainYAMLBooleans(errs, booleans field.ErrorList) field.ErrorList {
	if len(booleans) == 0 {
		return errs
	}
	explained := map[string]bool{}
	for _, b := range booleans {
		explained[b.Field] = true
	}
	out := slices.DeleteFunc(errs, func(e *field.Error) bool { return explained[e.Field] })
	return append(out, booleans...)
}

func (v *Validator) checkTypeMeta(obj map[string]interface{}) field.ErrorList {
	var errs field.ErrorList
	if got, _ := obj["apiVersion"].(string); got != benchv1.GroupVersion.String() {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), got, "must be "+benchv1.GroupVersion.String()))
	}
	if got, _ := obj["kind"].(string); got != v.kind && (v.schedules == nil || got != v.schedules.kind) {
		errs = append(errs, field.Invalid(field.NewPath("kind"), got, "must be "+v.kinds()))
	}
	return errs
}

// kinds are the kinds v takes, in words.
func (v *Validator) kinds() string {
	if v.schedules == nil {
		return v.kind
	}
	return v.kind + " or " + v.schedules.kind
}

func checkName(obj map[string]interface{}) field.ErrorList {
	meta, _ := obj["metadata"].(map[string]interface{})
	name, _ := meta["name"].(string)
	generate, _ := meta["generateName"].(string)
	p := field.NewPath("metadata", "name")
	if name == "" && generate == "" {
		return field.ErrorList{field.Required(p, "name or generateName is required")}
	}
	var errs field.ErrorList
	if name != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
	}
	// As the API server does (ValidateObjectMeta): generateName is a name prefix.
	if generate != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(generate, true) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "generateName"), generate, msg))
		}
	}
	return errs
}

// checkMetadata checks the rest of metadata as the API server does on create
// (ValidateObjectMeta: namespace, labels, annotations, finalizers, owner references; the
// name is checkName's), and refuses what a submitted document of kind must not carry: owner
// references and finalizers (set by controllers; a document with them could have the object
// collected with another object, or its deletion held).
func checkMetadata(obj map[string]interface{}, kind string) field.ErrorList {
	p := field.NewPath("metadata")
	raw, ok := obj["metadata"]
	if !ok {
		return nil
	}
	data, _ := json.Marshal(raw)
	var m metav1.ObjectMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return field.ErrorList{field.Invalid(p, "", "not ObjectMeta: "+err.Error())}
	}
	// The name is checkName's; a namespace, when given, must be a DNS-1123 label.
	m.Name, m.GenerateName = "x", ""
	errs := apimachineryvalidation.ValidateObjectMeta(&m, m.Namespace != "", func(string, bool) []string { return nil }, p)
	if len(m.OwnerReferences) > 0 {
		errs = append(errs, field.Forbidden(p.Child("ownerReferences"), "set by controllers, not in a submitted "+kind+": it would be deleted with its owner"))
	}
	if len(m.Finalizers) > 0 {
		errs = append(errs, field.Forbidden(p.Child("finalizers"), "set by the operator, not in a submitted "+kind+": a finalizer no controller removes holds its deletion"))
	}
	return errs
}
