package validation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/schedtime"
)

// validateSchedule checks a BenchmarkSchedule document: as the API server would admit it,
// then its times as the schedule controller reads them (schedtime.Check: the cron, the time
// zone in this machine's time zone database, the shortest interval, the name), then its
// template as the BenchmarkRun each scheduled time creates, with every check a submitted
// run gets, its errors named spec.template.spec....
func (v *Validator) validateSchedule(ctx context.Context, obj map[string]interface{}, name string) Document {
	errs := v.schedules.admit(ctx, obj)
	s := &benchv1.BenchmarkSchedule{}
	defaulted, _ := json.Marshal(obj)
	if err := json.Unmarshal(defaulted, s); err != nil {
		return Document{Meta: name, Errors: append(errs, field.Invalid(field.NewPath(""), "", "decoding the defaulted object: "+err.Error()))}
	}
	// The controller's refusals, on the fields the schema did not already refuse. A rule on
	// the whole object (the name's length) names its field only in its message: the
	// controller's error, naming it as a field, stands in for it.
	_, timeErrs := schedtime.Check(s.Name, &s.Spec, time.Now())
	for _, e := range timeErrs {
		whole := slices.IndexFunc(errs, func(x *field.Error) bool { return x.Field == "<nil>" && strings.HasPrefix(x.Detail, e.Field+":") })
		switch {
		case whole >= 0:
			errs[whole] = e
		case !slices.ContainsFunc(errs, func(x *field.Error) bool { return x.Field == e.Field }):
			errs = append(errs, e)
		}
	}
	// The same schema holds in both: a field the schedule's errors name already (the
	// template's, or the name that makes the run's name wrong too) is not named twice.
	admitted := len(errs)
	for _, e := range v.validateTemplate(ctx, s, obj) {
		if !slices.ContainsFunc(errs[:admitted], func(x *field.Error) bool { return x.Field == e.Field }) {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return Document{Meta: name, Errors: errs}
	}
	return Document{Meta: name, Schedule: s}
}

// validateTemplate validates the run spec.template makes (its labels, annotations and spec,
// named as the controller names it) as a submitted BenchmarkRun, and names each error's
// field where it is in the schedule.
func (v *Validator) validateTemplate(ctx context.Context, s *benchv1.BenchmarkSchedule, obj map[string]interface{}) field.ErrorList {
	spec, _ := obj["spec"].(map[string]interface{})
	tpl, _ := spec["template"].(map[string]interface{})
	if tpl == nil {
		return nil // the schema has said spec.template is required
	}
	name := s.Name
	if name == "" {
		name = "schedule"
	}
	meta := map[string]interface{}{"name": fmt.Sprintf("%s-%d", name, time.Now().Unix()/60)}
	if s.Namespace != "" {
		meta["namespace"] = s.Namespace
	}
	for _, k := range []string{"labels", "annotations"} {
		if m, ok := tpl[k]; ok {
			meta[k] = m
		}
	}
	run := map[string]interface{}{"apiVersion": benchv1.GroupVersion.String(), "kind": "BenchmarkRun", "metadata": meta, "spec": tpl["spec"]}
	raw, _ := json.Marshal(run)
	doc := v.Validate(ctx, raw)
	out := make(field.ErrorList, 0, len(doc.Errors))
	for _, e := range doc.Errors {
		e := *e
		e.Field = templateField(e.Field)
		out = append(out, &e)
	}
	return out
}

// templateField is where a field of the template's run is in the schedule.
func templateField(f string) string {
	for run, sched := range map[string]string{"spec": "spec.template.spec", "metadata.labels": "spec.template.labels",
		"metadata.annotations": "spec.template.annotations"} {
		if f == run || strings.HasPrefix(f, run+".") || strings.HasPrefix(f, run+"[") {
			return sched + f[len(run):]
		}
	}
	return f
}
