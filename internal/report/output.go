package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Files of a results folder.
const (
	StatusFile  = "status.yaml"  // the BenchmarkRun with its status, as the API would hold it
	ResultsFile = "results.json" // status.results alone
	ReportFile  = "report.html"  // charts, readable offline
)

// WriteOutputs writes the results folder. Each file is written to a temporary name and
// renamed, so an interruption never leaves half a file.
func WriteOutputs(dir string, run *benchv1.BenchmarkRun) error {
	run.APIVersion, run.Kind = benchv1.GroupVersion.String(), "BenchmarkRun"
	status, err := yaml.Marshal(run)
	if err != nil {
		return err
	}
	rows := run.Status.Results
	if rows == nil {
		rows = []benchv1.ResultRow{}
	}
	rowsJSON, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	report, err := Report(run)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for name, data := range map[string][]byte{StatusFile: status, ResultsFile: append(rowsJSON, '\n'), ReportFile: report} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
			return err
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			return err
		}
	}
	return nil
}
