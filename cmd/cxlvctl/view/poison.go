package view

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/poison"
)

// PoisonJSON is one record of `poison list --json`.
type PoisonJSON struct {
	Memdev       string   `json:"memdev"`
	DPA          uint64   `json:"dpa"`
	Length       uint64   `json:"length"`
	HPA          *uint64  `json:"hpa,omitempty"`
	Region       string   `json:"region,omitempty"`
	Source       string   `json:"source"`
	Flags        []string `json:"flags,omitempty"`
	OverflowTime string   `json:"overflow_time,omitempty"`
}

// PoisonList is the JSON of `poison list`: an array, empty when the device
// reports no poison.
func PoisonList(records []poison.Record) []PoisonJSON {
	out := []PoisonJSON{}
	for _, r := range records {
		j := PoisonJSON{Memdev: r.Memdev, DPA: r.DPA, Length: r.Length, HPA: r.HPA, Region: r.Region,
			Source: r.Source, Flags: r.Flags}
		if r.OverflowTime != 0 {
			j.OverflowTime = strconv.FormatUint(r.OverflowTime, 10) // above 2^53: a string, as serial
		}
		out = append(out, j)
	}
	return out
}

// PoisonTable is the table of `poison list`: one row per record.
func PoisonTable(records []poison.Record) (header []string, rows [][]string) {
	header = []string{"MEMDEV", "DPA", "LENGTH", "HPA", "REGION", "SOURCE", "FLAGS"}
	for _, r := range records {
		hpa := "-"
		if r.HPA != nil {
			hpa = fmt.Sprintf("%#x", *r.HPA)
		}
		rows = append(rows, []string{r.Memdev, fmt.Sprintf("%#x", r.DPA), strconv.FormatUint(r.Length, 10), hpa,
			Dash(r.Region), r.Source, Dash(strings.Join(r.Flags, ","))})
	}
	return header, rows
}

// PoisonWhere is ", HPA 0x... in regionN" for an address a region maps,
// else "".
func PoisonWhere(hpa *uint64, region string) string {
	if hpa == nil {
		return ""
	}
	return fmt.Sprintf(" (HPA %#x in %s)", *hpa, region)
}
