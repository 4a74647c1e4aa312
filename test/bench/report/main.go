// Command report turns the raw output of one `make bench` VM run (samples.tsv,
// notes.txt, env.txt, host.txt, host-load.txt written by test/bench/run.sh
// and test/bench/guest/bench.sh) into results/bench.json, results/bench.md
// and results/bench.svg: medians of the repeated samples, cxl_virt's ratios
// to the other targets, and the speed targets of issue 6 marked met or not.
//
//	go run ./test/bench/report -in results/tmp/run-X -out results [-guest-exit N]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Stat is the summary of the repeated samples of one metric on one target.
type Stat struct {
	Section string    `json:"section"`
	Metric  string    `json:"metric"`
	Target  string    `json:"target"`
	Unit    string    `json:"unit"`
	Median  float64   `json:"median"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Values  []float64 `json:"values"`
}

// HostLoad says how busy the shared host was while the VM ran.
type HostLoad struct {
	Before      string  `json:"load_before"`
	Mean1m      float64 `json:"load_1m_mean"`
	Max1m       float64 `json:"load_1m_max"`
	MaxOtherVMs int     `json:"max_other_vms"`
	Noisy       bool    `json:"noisy"`
}

// Report is what bench.json holds and bench.md and bench.svg show.
type Report struct {
	Generated   string            `json:"generated"`
	GuestExit   int               `json:"guest_exit"`
	Environment map[string]string `json:"environment"`
	HostLoad    HostLoad          `json:"host_load"`
	Stats       []Stat            `json:"stats"`
	Ratios      []Ratio           `json:"ratios"`
	Targets     []Verdict         `json:"targets"`
	Notes       []string          `json:"notes"`
}

func main() {
	in := flag.String("in", "", "raw output directory of one bench run")
	out := flag.String("out", "results", "directory for bench.json, bench.md, bench.svg")
	guestExit := flag.Int("guest-exit", 0, "exit code of the guest script")
	flag.Parse()
	if *in == "" {
		fmt.Fprintln(os.Stderr, "report: -in DIR is required (the raw output of test/bench/run.sh)")
		os.Exit(2)
	}
	if err := run(*in, *out, *guestExit); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(in, out string, guestExit int) error {
	stats, err := readSamples(filepath.Join(in, "samples.tsv"))
	if err != nil {
		return err
	}
	env := map[string]string{}
	for _, name := range []string{"env.txt", "host.txt"} {
		if err := readKeyValues(filepath.Join(in, name), env); err != nil {
			return err
		}
	}
	notes, err := readLines(filepath.Join(in, "notes.txt"))
	if err != nil {
		return err
	}
	load, err := readHostLoad(filepath.Join(in, "host-load.txt"), env["load_before"])
	if err != nil {
		return err
	}
	r := Report{
		Generated:   time.Now().UTC().Format(time.RFC3339),
		GuestExit:   guestExit,
		Environment: env,
		HostLoad:    load,
		Stats:       stats,
		Notes:       notes,
	}
	r.Ratios = ratios(stats)
	r.Targets = verdicts(stats)

	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "bench.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "bench.md"), []byte(markdown(r)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "bench.svg"), []byte(plot(r)), 0o644)
}

// readSamples reads section, metric, target, value, unit lines and groups
// the values of each (section, metric, target), in first-seen order.
func readSamples(path string) ([]Stat, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	var stats []Stat
	for n, line := range lines {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 tab-separated fields, got %q", path, n+1, line)
		}
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			continue // a measurement that printed nothing: the notes say why
		}
		key := f[0] + "\t" + f[1] + "\t" + f[2]
		i, ok := index[key]
		if !ok {
			i = len(stats)
			index[key] = i
			stats = append(stats, Stat{Section: f[0], Metric: f[1], Target: f[2], Unit: f[4]})
		}
		stats[i].Values = append(stats[i].Values, v)
	}
	for i := range stats {
		summarize(&stats[i])
	}
	return stats, nil
}

func summarize(s *Stat) {
	v := append([]float64(nil), s.Values...)
	sort.Float64s(v)
	s.Min, s.Max = v[0], v[len(v)-1]
	if len(v)%2 == 1 {
		s.Median = v[len(v)/2]
	} else {
		s.Median = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
}

// find returns the stat of a metric on a target, or nil.
func find(stats []Stat, metric, target string) *Stat {
	for i := range stats {
		if stats[i].Metric == metric && stats[i].Target == target {
			return &stats[i]
		}
	}
	return nil
}

// readHostLoad summarizes the "load1 qemu_processes ours" lines sampled
// during the run, counting only those taken while our VM ran (ours = 1: it
// may wait for a VM slot first); it adds up to 2 to the load itself.
func readHostLoad(path, before string) (HostLoad, error) {
	lines, err := readLines(path)
	if err != nil {
		return HostLoad{}, err
	}
	h := HostLoad{Before: before}
	var sum float64
	var n int
	for _, line := range lines {
		var load float64
		var vms, ours int
		if _, err := fmt.Sscan(line, &load, &vms, &ours); err != nil || ours != 1 {
			continue
		}
		sum += load
		n++
		h.Max1m = max(h.Max1m, load)
		h.MaxOtherVMs = max(h.MaxOtherVMs, vms-1)
	}
	if n > 0 {
		h.Mean1m = sum / float64(n)
	}
	first, _, _ := strings.Cut(before, " ")
	b, _ := strconv.ParseFloat(first, 64)
	h.Noisy = h.MaxOtherVMs > 0 || b > 0.5 || h.Max1m > 2.5
	return h, nil
}

func readKeyValues(path string, into map[string]string) error {
	lines, err := readLines(path)
	if err != nil {
		return err
	}
	for _, line := range lines {
		if k, v, ok := strings.Cut(line, "="); ok {
			into[k] = v
		}
	}
	return nil
}

// readLines returns the non-empty lines of a file; a missing file has none.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			lines = append(lines, line)
		}
	}
	return lines, sc.Err()
}
