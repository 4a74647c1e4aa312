package view

import "github.com/cxlv/cxlv/writer"

// DryRunJSON is what --dry-run --json prints: the plan of kernel writes
// and commands, once complete.
type DryRunJSON struct {
	DryRun bool       `json:"dry_run"`
	Steps  []StepJSON `json:"steps"`
}

// StepJSON is a planned write (path and value) or command.
type StepJSON struct {
	Path    string   `json:"path,omitempty"`
	Value   *string  `json:"value,omitempty"`
	Command []string `json:"command,omitempty"`
}

// DryRunPlan is the JSON form of the steps a dry run recorded.
func DryRunPlan(steps []writer.Step) DryRunJSON {
	plan := DryRunJSON{DryRun: true, Steps: []StepJSON{}}
	for _, s := range steps {
		plan.Steps = append(plan.Steps, StepJSON(s))
	}
	return plan
}
