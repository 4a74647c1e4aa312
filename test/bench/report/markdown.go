package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

var targetNames = map[string]string{
	cxlVirt:            "cxl_virt devdax",
	qemuDev:            "QEMU emulated CXL devdax",
	legacy:             "legacy pmem devdax (memmap=!)",
	anonRAM:            "anonymous RAM",
	"cxlvctl":          "`cxlvctl list --json`",
	"cxl-cli":          "`cxl list -vvv`",
	"cxlvctl-baseline": "`cxlvctl list --json` before (BENCH_BASELINE)",
}

var metricNames = map[string]string{
	"memcpy_randwrite":              "memcpy 1K rand write",
	"memcpy_randread":               "memcpy 1K rand read",
	"fio_randwrite_nj1":             "fio RFC job, 1 job",
	"fio_randwrite_nj2":             "fio RFC job, 2 jobs",
	"create_to_memdev_bound_ms":     "create -> memdev bound (ms)",
	"region_create_ms":              "`cxl create-region` (ms)",
	"namespace_create_ms":           "`ndctl create-namespace -m devdax` (ms)",
	"region_create_to_dax_mount_ms": "`cxlvctl region create --fs xfs --mount` to a DAX mount (ms)",
	"get_lsa_2k_us":                 "GET_LSA 2 KiB round trip, 64 in a row (us/command)",
	"label_read_us_per_cmd":         "`cxl read-labels` 128 KiB, whole process (us/command)",
	"label_read_128k_ms":            "`cxl read-labels` 128 KiB, whole process (ms)",
	"label_read_cmds":               "mailbox commands for 128 KiB of labels",
	"idle_callbacks_per_s":          "idle poll callbacks per second",
	"idle_callback_us":              "idle poll callback duration (us)",
	"idle_cpu_pct":                  "idle CPU (% of one vCPU, callbacks only)",
}

func name(m map[string]string, key string) string {
	if n, ok := m[key]; ok {
		return n
	}
	return key
}

// cell prints "median [min-max] (n)" or "-" when the metric is missing.
func cell(stats []Stat, metric, target string) string {
	s := find(stats, metric, target)
	if s == nil {
		return "-"
	}
	if len(s.Values) == 1 {
		return value(s.Median, s.Unit)
	}
	return fmt.Sprintf("%s [%s-%s] (n=%d)", value(s.Median, s.Unit), value(s.Min, s.Unit), value(s.Max, s.Unit), len(s.Values))
}

func table(b *strings.Builder, header []string, rows [][]string) {
	fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range rows {
		fmt.Fprintf(b, "| %s |\n", strings.Join(r, " | "))
	}
	b.WriteString("\n")
}

func markdown(r Report) string {
	var b strings.Builder
	env := r.Environment
	b.WriteString("# cxlv benchmarks\n\n")
	fmt.Fprintf(&b, "`make bench`, one VM boot, %s to %s. Guest kernel %s; %s; accelerator %s; "+
		"guest %s vCPUs, %s MiB; cxl-cli %s, ndctl %s, %s; memiops built with gcc %s; "+
		"cxl_virt.ko sha256 %s, bin/cxlvctl sha256 %s. %s.\n"+
		"Values are medians with [min-max] over n runs, targets interleaved round by round; "+
		"1 KiB blocks at random 1 KiB-aligned offsets of a 256 MiB working set.\n\n",
		env["started"], env["finished"], env["guest_kernel"], env["qemu"], env["accelerator"],
		env["guest_cpus"], kib2mib(env["guest_mem_kib"]), env["cxl_cli"], env["ndctl"], env["fio"],
		env["gcc"], env["cxl_virt_sha256"], env["cxlvctl_sha256"], env["settings"])
	h := r.HostLoad
	if h.Noisy {
		fmt.Fprintf(&b, "> **Noisy:** taken on a shared 2-core host: load average %s before the run, "+
			"1-min load %.2f mean / %.2f max during it (this VM adds up to 2), up to %d other VM(s) running. "+
			"Absolute numbers and ratios near a threshold can move by 15%% or more between runs.\n\n",
			h.Before, h.Mean1m, h.Max1m, h.MaxOtherVMs)
	} else {
		fmt.Fprintf(&b, "Host load: %s before, %.2f mean / %.2f max during the run (this VM included), no other VM.\n\n",
			h.Before, h.Mean1m, h.Max1m)
	}
	if r.GuestExit != 0 {
		fmt.Fprintf(&b, "> **The guest script exited %d**: see the notes; parts may be missing.\n\n", r.GuestExit)
	}

	b.WriteString("## Targets (issue 6)\n\n")
	var rows [][]string
	for _, v := range r.Targets {
		status := v.Status
		if v.Noise {
			status += " (within run-to-run spread)"
		}
		rows = append(rows, []string{v.Target, v.Measured, "**" + status + "**"})
	}
	table(&b, []string{"target", "measured (medians)", "status"}, rows)

	b.WriteString("## Data path: IOPS\n\n![IOPS per target](bench.svg)\n\n")
	rows = nil
	for _, t := range []string{cxlVirt, qemuDev, legacy, anonRAM} {
		row := []string{name(targetNames, t)}
		for _, m := range dataMetrics {
			row = append(row, cell(r.Stats, m, t))
		}
		rows = append(rows, row)
	}
	header := []string{"target"}
	for _, m := range dataMetrics {
		header = append(header, name(metricNames, m))
	}
	table(&b, header, rows)
	b.WriteString("fio on anonymous RAM runs the same job through the mmap engine on a tmpfs file " +
		"(there is no /dev/dax for it); memcpy uses an anonymous mapping.\n\n")
	if len(r.Ratios) > 0 {
		rows = nil
		for _, m := range dataMetrics {
			row := []string{name(metricNames, m)}
			for _, other := range []string{anonRAM, legacy, qemuDev} {
				row = append(row, ratioCell(r.Ratios, m, other))
			}
			rows = append(rows, row)
		}
		table(&b, []string{"cxl_virt /", "anonymous RAM", "legacy pmem", "QEMU device"}, rows)
	}

	b.WriteString("## Control plane (ms)\n\n")
	rows = nil
	for _, m := range []string{"create_to_memdev_bound_ms", "region_create_ms", "namespace_create_ms", "region_create_to_dax_mount_ms"} {
		rows = append(rows, []string{name(metricNames, m), cell(r.Stats, m, cxlVirt), cell(r.Stats, m, qemuDev), cell(r.Stats, m, legacy)})
	}
	table(&b, []string{"step", "cxl_virt", "QEMU device", "legacy pmem"}, rows)
	rows = nil
	for _, state := range listStates(r.Stats) {
		if strings.HasSuffix(state, "dev") {
			continue // the scale table shows these
		}
		m := "list_ms_" + state
		rows = append(rows, []string{state, cell(r.Stats, m, "cxlvctl"), cell(r.Stats, m, "cxl-cli"), listRatio(r.Stats, m, "cxlvctl"),
			cell(r.Stats, m, "cxlvctl-baseline"), listRatio(r.Stats, m, "cxlvctl-baseline")})
	}
	if len(rows) > 0 {
		b.WriteString("### Listing\n\nms per call (`devices`: 1 cxl_virt device + QEMU's device; `region`: with a region and devdax namespace on each; `startup`: `cxlvctl version` vs `cxl version`, the process start-up alone; `before`: the cxlvctl of `BENCH_BASELINE`, in the same boot):\n\n")
		table(&b, []string{"state", "`cxlvctl list --json`", "`cxl list -vvv`", "ratio", "before", "before ratio"}, rows)
	}

	b.WriteString("## Emulator (mailbox, idle cost)\n\n")
	rows = nil
	for _, m := range []string{"get_lsa_2k_us", "label_read_us_per_cmd", "label_read_128k_ms", "label_read_cmds",
		"idle_callbacks_per_s", "idle_callback_us", "idle_cpu_pct"} {
		rows = append(rows, []string{name(metricNames, m), cell(r.Stats, m, cxlVirt), cell(r.Stats, m, qemuDev)})
	}
	table(&b, []string{"metric", "cxl_virt", "QEMU device"}, rows)
	b.WriteString("QEMU's device is emulated in QEMU's own threads: it costs the guest nothing when idle, so it has no idle row.\n\n")

	if counts := scaleCounts(r.Stats); len(counts) > 0 {
		b.WriteString("## Scale\n\n")
		rows = nil
		for _, n := range counts {
			rows = append(rows, []string{strconv.Itoa(n),
				cell(r.Stats, fmt.Sprintf("create_ms_%d_devices", n), cxlVirt),
				cell(r.Stats, fmt.Sprintf("memory_kib_%d_devices", n), cxlVirt),
				cell(r.Stats, fmt.Sprintf("list_ms_%ddev", n), "cxlvctl"),
				cell(r.Stats, fmt.Sprintf("list_ms_%ddev", n), "cxl-cli")})
		}
		table(&b, []string{"devices", "create -> all memdevs bound (ms)", "MemAvailable drop (KiB)",
			"`cxlvctl list --json` (ms)", "`cxl list -vvv` (ms)"}, rows)
	}

	if len(r.Notes) > 0 {
		b.WriteString("## Not measured in this run\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Scope\n\n" +
		"- fio runs the RFC's job (random writes); reads are measured with memiops only.\n" +
		"- Listing is timed with 1 device (with and without a region) and with 1, 4 and 16 devices in the scale part (issue 6 asks for 8).\n" +
		"- Scale memory is the guest's MemAvailable drop after dropping caches: guest-wide, so anything else allocated meanwhile counts too.\n" +
		"- Idle CPU counts the poll callback only (hrtimer expire entry to exit), not the timer interrupt around it.\n" +
		"- GET_LSA round trips come from `test/tools/cxl-mbox-probe` (64 ioctls in a row, no process start-up); " +
		"the `cxl read-labels` rows include the process start and divide by the ioctls the process sent.\n" +
		"- KVM does not work on this machine: every number is TCG, where fio's per-I/O cost and QEMU's MMIO emulation dominate.\n\n")
	b.WriteString("Raw samples: `bench.json` (every value of every run). Reproduce: `make bench` " +
		"(`BENCH_QUICK=1` for a short harness check).\n")
	return b.String()
}

func ratioCell(rs []Ratio, metric, versus string) string {
	for _, r := range rs {
		if r.Metric == metric && r.Versus == versus {
			return fmt.Sprintf("%.3gx", r.Value)
		}
	}
	return "-"
}

// listRatio is target's median over cxl-cli's.
func listRatio(stats []Stat, metric, target string) string {
	a, b := find(stats, metric, target), find(stats, metric, "cxl-cli")
	if a == nil || b == nil || b.Median == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a.Median/b.Median)
}

// listStates returns the states list timings were taken in, in run order.
func listStates(stats []Stat) []string {
	var states []string
	seen := map[string]bool{}
	for _, s := range stats {
		state, ok := strings.CutPrefix(s.Metric, "list_ms_")
		if ok && !seen[state] {
			seen[state] = true
			states = append(states, state)
		}
	}
	return states
}

// scaleCounts returns the device counts of the scale part, ascending.
func scaleCounts(stats []Stat) []int {
	var counts []int
	for _, s := range stats {
		var n int
		if _, err := fmt.Sscanf(s.Metric, "create_ms_%d_devices", &n); err == nil {
			counts = append(counts, n)
		}
	}
	sort.Ints(counts)
	return counts
}

func kib2mib(kib string) string {
	v, err := strconv.Atoi(kib)
	if err != nil {
		return "?"
	}
	return strconv.Itoa(v / 1024)
}
