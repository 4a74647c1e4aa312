package view

import (
	"bytes"
	"testing"

	"github.com/cxlv/cxlv/writer"
)

// A write keeps its value even when empty; a command has no path or value.
func TestDryRunPlan(t *testing.T) {
	d := &writer.DryRun{JSON: true}
	var out bytes.Buffer
	if err := WriteJSON(&out, DryRunPlan(d.Steps())); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"dry_run\": true,\n  \"steps\": []\n}\n"; out.String() != want {
		t.Errorf("empty plan %q, want %q", out.String(), want)
	}
	_ = d.Write("/sys/bus/cxl/devices/endpoint2/decoder2.0/target", "")
	_ = d.Command([]string{"mkfs.xfs", "-f", "/dev/pmem0"})
	out.Reset()
	if err := WriteJSON(&out, DryRunPlan(d.Steps())); err != nil {
		t.Fatal(err)
	}
	want := `{
  "dry_run": true,
  "steps": [
    {
      "path": "/sys/bus/cxl/devices/endpoint2/decoder2.0/target",
      "value": ""
    },
    {
      "command": [
        "mkfs.xfs",
        "-f",
        "/dev/pmem0"
      ]
    }
  ]
}
`
	if out.String() != want {
		t.Errorf("plan\n%s\nwant\n%s", out.String(), want)
	}
}
