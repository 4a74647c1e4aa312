package main

import "fmt"

// Target names as the guest script records them.
const (
	cxlVirt = "cxl_virt"
	qemuDev = "qemu"
	legacy  = "pmem"
	anonRAM = "anon"
)

// dataMetrics are the data-path metrics, in the order tables and the plot show them.
var dataMetrics = []string{"memcpy_randwrite", "memcpy_randread", "fio_randwrite_nj1", "fio_randwrite_nj2"}

// Ratio is cxl_virt's median over another target's median for one metric.
type Ratio struct {
	Metric string  `json:"metric"`
	Versus string  `json:"versus"`
	Value  float64 `json:"value"`
}

// Verdict is one speed target of issue 6 and how the run did against it.
type Verdict struct {
	Target   string `json:"target"`
	Measured string `json:"measured"`
	// Status is "met", "not met" or "not measured".
	Status string `json:"status"`
	// Noise is set when a missed target is within the run-to-run spread.
	Noise bool `json:"within_noise,omitempty"`
}

func ratios(stats []Stat) []Ratio {
	var out []Ratio
	for _, m := range dataMetrics {
		ours := find(stats, m, cxlVirt)
		if ours == nil {
			continue
		}
		for _, other := range []string{anonRAM, legacy, qemuDev} {
			if s := find(stats, m, other); s != nil && s.Median > 0 {
				out = append(out, Ratio{Metric: m, Versus: other, Value: ours.Median / s.Median})
			}
		}
	}
	return out
}

// atLeast checks median(a) >= k * median(b) for higher-is-better metrics;
// atMost checks median(a) <= k * median(b) for lower-is-better ones.
type comparison struct {
	name    string
	metric  string
	a, b    string
	k       float64
	atLeast bool
}

var comparisons = []comparison{
	{"memcpy 1K random write: cxl_virt >= 0.95 x anonymous RAM", "memcpy_randwrite", cxlVirt, anonRAM, 0.95, true},
	{"memcpy 1K random write: cxl_virt >= 1.0 x legacy pmem", "memcpy_randwrite", cxlVirt, legacy, 1.0, true},
	{"memcpy 1K random write: cxl_virt >= 25 x QEMU device", "memcpy_randwrite", cxlVirt, qemuDev, 25, true},
	{"memcpy 1K random read: cxl_virt >= 0.95 x anonymous RAM", "memcpy_randread", cxlVirt, anonRAM, 0.95, true},
	{"memcpy 1K random read: cxl_virt >= 1.0 x legacy pmem", "memcpy_randread", cxlVirt, legacy, 1.0, true},
	{"memcpy 1K random read: cxl_virt >= 25 x QEMU device", "memcpy_randread", cxlVirt, qemuDev, 25, true},
	{"`cxlvctl list --json` <= 0.5 x `cxl list -vvv` (1 device)", "list_ms_devices", "cxlvctl", "cxl-cli", 0.5, false},
	{"`cxlvctl list --json` <= 0.5 x `cxl list -vvv` (1 device + region)", "list_ms_region", "cxlvctl", "cxl-cli", 0.5, false},
	{"`cxlvctl list --json` <= 1.0 x `cxl list -vvv` (1 device), the least", "list_ms_devices", "cxlvctl", "cxl-cli", 1.0, false},
	{"`cxlvctl list --json` <= 1.0 x `cxl list -vvv` (1 device + region), the least", "list_ms_region", "cxlvctl", "cxl-cli", 1.0, false},
	{"start-up: `cxlvctl version` <= 1.0 x `cxl version`", "list_ms_startup", "cxlvctl", "cxl-cli", 1.0, false},
	{"mailbox GET_LSA 2K round trip: cxl_virt <= 0.25 x QEMU device", "get_lsa_2k_us", cxlVirt, qemuDev, 0.25, false},
}

func verdicts(stats []Stat) []Verdict {
	var out []Verdict
	for _, c := range comparisons {
		a, b := find(stats, c.metric, c.a), find(stats, c.metric, c.b)
		if a == nil || b == nil || b.Median == 0 {
			out = append(out, Verdict{Target: c.name, Measured: "-", Status: "not measured"})
			continue
		}
		r := a.Median / b.Median
		v := Verdict{Target: c.name, Measured: fmt.Sprintf("%.3gx (%s vs %s %s)",
			r, value(a.Median, a.Unit), value(b.Median, b.Unit), a.Unit)}
		met := r <= c.k
		if c.atLeast {
			met = r >= c.k
		}
		v.Status = "not met"
		if met {
			v.Status = "met"
		} else {
			// the best of a's runs against the worst of b's reaches the target
			best := a.Min / b.Max
			if c.atLeast {
				best = a.Max / b.Min
			}
			v.Noise = (c.atLeast && best >= c.k) || (!c.atLeast && best <= c.k)
		}
		out = append(out, v)
	}
	idle := find(stats, "idle_cpu_pct", cxlVirt)
	v := Verdict{Target: "emulator idle CPU < 1% of one vCPU", Measured: "-", Status: "not measured"}
	if idle != nil {
		v.Measured = fmt.Sprintf("%.3g%%", idle.Median)
		v.Status = "not met"
		if idle.Median < 1 {
			v.Status = "met"
		}
	}
	return append(out, v)
}

// number prints a count with 3 significant digits, K/M for large ones.
func number(v float64) string {
	switch { // thresholds at what %.3g rounds up, so 999.9K prints as 1M
	case v >= 999.5e3:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 999.5:
		return fmt.Sprintf("%.3gK", v/1e3)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// value prints a measurement: IOPS as counts, times and sizes in full.
func value(v float64, unit string) string {
	switch {
	case unit == "iops":
		return number(v)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}
