package main

import "testing"

func TestSummarizeMedian(t *testing.T) {
	for _, tc := range []struct {
		values           []float64
		median, min, max float64
	}{
		{[]float64{3, 1, 2}, 2, 1, 3},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4},
		{[]float64{7}, 7, 7, 7},
	} {
		s := Stat{Values: tc.values}
		summarize(&s)
		if s.Median != tc.median || s.Min != tc.min || s.Max != tc.max {
			t.Errorf("%v: got median %v min %v max %v, want %v %v %v",
				tc.values, s.Median, s.Min, s.Max, tc.median, tc.min, tc.max)
		}
	}
}

func stat(metric, target string, values ...float64) Stat {
	s := Stat{Metric: metric, Target: target, Values: values}
	summarize(&s)
	return s
}

func verdictOf(t *testing.T, stats []Stat, target string) Verdict {
	t.Helper()
	for _, v := range verdicts(stats) {
		if v.Target == target {
			return v
		}
	}
	t.Fatalf("no verdict %q", target)
	return Verdict{}
}

func TestVerdicts(t *testing.T) {
	const vsPmem = "memcpy 1K random write: cxl_virt >= 1.0 x legacy pmem"
	const mailbox = "mailbox GET_LSA 2K round trip: cxl_virt <= 0.25 x QEMU device"
	for _, tc := range []struct {
		name   string
		stats  []Stat
		target string
		status string
		noise  bool
	}{
		{"higher is better, met", []Stat{stat("memcpy_randwrite", cxlVirt, 100, 110, 105),
			stat("memcpy_randwrite", legacy, 100, 101, 99)}, vsPmem, "met", false},
		{"missed within the spread", []Stat{stat("memcpy_randwrite", cxlVirt, 90, 99, 120),
			stat("memcpy_randwrite", legacy, 100, 101, 99)}, vsPmem, "not met", true},
		{"missed outside the spread", []Stat{stat("memcpy_randwrite", cxlVirt, 50, 60, 55),
			stat("memcpy_randwrite", legacy, 100, 101, 99)}, vsPmem, "not met", false},
		{"lower is better, met", []Stat{stat("get_lsa_2k_us", cxlVirt, 50, 60),
			stat("get_lsa_2k_us", qemuDev, 300, 310)}, mailbox, "met", false},
		{"lower is better, not met", []Stat{stat("get_lsa_2k_us", cxlVirt, 200),
			stat("get_lsa_2k_us", qemuDev, 300)}, mailbox, "not met", false},
		{"missing target", []Stat{stat("get_lsa_2k_us", qemuDev, 300)}, mailbox, "not measured", false},
	} {
		v := verdictOf(t, tc.stats, tc.target)
		if v.Status != tc.status || v.Noise != tc.noise {
			t.Errorf("%s: got %q noise=%v, want %q noise=%v", tc.name, v.Status, v.Noise, tc.status, tc.noise)
		}
	}
}

func TestIdleVerdict(t *testing.T) {
	const idle = "emulator idle CPU < 1% of one vCPU"
	if v := verdictOf(t, []Stat{stat("idle_cpu_pct", cxlVirt, 0.4)}, idle); v.Status != "met" {
		t.Errorf("0.4%%: got %q, want met", v.Status)
	}
	if v := verdictOf(t, []Stat{stat("idle_cpu_pct", cxlVirt, 1.5)}, idle); v.Status != "not met" {
		t.Errorf("1.5%%: got %q, want not met", v.Status)
	}
	if v := verdictOf(t, nil, idle); v.Status != "not measured" {
		t.Errorf("no samples: got %q, want not measured", v.Status)
	}
}
