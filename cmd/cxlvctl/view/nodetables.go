package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/cxlv/cxlv/acpi"
	"github.com/cxlv/cxlv/units"
)

// NodeTablesJSON is what node-tables --json prints.
type NodeTablesJSON struct {
	Output       string     `json:"output"`
	Bytes        int        `json:"bytes"`
	Tables       []string   `json:"tables"`
	Windows      []SpanJSON `json:"windows"`
	FirmwareSRAT bool       `json:"firmware_srat"`
	CPUs         int        `json:"cpus,omitempty"`
	Node0RAM     []SpanJSON `json:"node0_ram,omitempty"`
	Hook         string     `json:"initramfs_hook"`
	// DryRun: nothing was written (the archive is no kernel write, so it
	// is not a step of the --dry-run plan).
	DryRun bool `json:"dry_run,omitempty"`
}

// NodeTables is the JSON form of plan, whose archive of size bytes went
// (or, dryRun, would go) to output, installed by the initramfs hook.
func NodeTables(plan acpi.NodePlan, output string, size int, hook string, dryRun bool) NodeTablesJSON {
	out := NodeTablesJSON{Output: output, Bytes: size, FirmwareSRAT: plan.FirmwareSRAT,
		CPUs: len(plan.CPUs), Hook: hook, DryRun: dryRun}
	for _, f := range plan.Files {
		out.Tables = append(out.Tables, string(f.Data[:4]))
	}
	for _, w := range plan.Windows {
		out.Windows = append(out.Windows, SpanJSON(w))
	}
	for _, r := range plan.RAM {
		out.Node0RAM = append(out.Node0RAM, SpanJSON(r))
	}
	return out
}

// WriteNodeTables says what node-tables wrote, or would write, and how to
// put it to use.
func WriteNodeTables(out io.Writer, nt NodeTablesJSON) {
	verb := "wrote"
	if nt.DryRun {
		verb = "would write"
	}
	var spans []string
	for _, w := range nt.Windows {
		spans = append(spans, fmt.Sprintf("%#x-%#x (%s)", w.Start, w.Start+w.Size-1, units.FormatSize(w.Size)))
	}
	what := fmt.Sprintf("an SRAT with %d CPUs and %d RAM ranges in node 0 and a node for each window, and an HMAT", nt.CPUs, len(nt.Node0RAM))
	if nt.FirmwareSRAT {
		what = "a CEDT with a CXL window each (the firmware's SRAT stays)"
	}
	fmt.Fprintf(out, "%s %s (%d bytes) for %s: %s\n"+
		"to use it, put it at the front of the initramfs and reboot; with initramfs-tools:\n%s"+
		"after the reboot dmesg says \"ACPI: Table Upgrade: install [%s-CXLV  -CXLVNODE]\" and\n"+
		"each window is a CPU-less node (cxlvctl info shows the node of a RAM region there)\n",
		verb, nt.Output, nt.Bytes, strings.Join(spans, ", "), what, indent(nt.Hook), nt.Tables[0])
}

// indent prefixes every line of s with two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}
