package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
)

func fixtureRoot(scenario string) string { return filepath.Join(fixtureDir(scenario), "sys") }

// dryRun runs a --dry-run command that must succeed and returns its output
// and the fixture root as a regular expression.
func dryRun(t *testing.T, scenario string, args ...string) (out, root string) {
	t.Helper()
	out, errOut, rc := cxlvctl(t, scenario, append([]string{"--dry-run"}, args...)...)
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errOut)
	}
	return out, regexp.QuoteMeta(fixtureRoot(scenario))
}

const uuidRE = `[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`

// matchLines checks output line by line against regular expressions.
func matchLines(t *testing.T, out string, want []string) {
	t.Helper()
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Errorf("got %d lines, want %d:\n%s", len(got), len(want), out)
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		if !regexp.MustCompile("^" + want[i] + "$").MatchString(got[i]) {
			t.Errorf("line %d: %q does not match %q", i+1, got[i], want[i])
		}
	}
}

func TestRegionCreateDryRun(t *testing.T) {
	out, root := dryRun(t, "qemu-bare", "region", "create", "--memdev", "mem0", "--fs", "xfs", "--mount", t.TempDir())
	matchLines(t, out, []string{
		"echo region0 > " + root + "/bus/cxl/devices/decoder0.0/create_pmem_region",
		"echo 256 > " + root + "/bus/cxl/devices/region0/interleave_granularity",
		"echo 1 > " + root + "/bus/cxl/devices/region0/interleave_ways",
		"echo " + uuidRE + " > " + root + "/bus/cxl/devices/region0/uuid",
		"echo 0x20000000 > " + root + "/bus/cxl/devices/region0/size",
		"echo pmem > " + root + "/bus/cxl/devices/decoder2.0/mode",
		"echo 0x20000000 > " + root + "/bus/cxl/devices/decoder2.0/dpa_size",
		"echo decoder2.0 > " + root + "/bus/cxl/devices/region0/target0",
		"echo 1 > " + root + "/bus/cxl/devices/region0/commit",
		"echo region0 > " + root + "/bus/cxl/drivers/cxl_region/bind",
		"echo " + uuidRE + " > " + root + "/bus/nd/devices/namespace0.0/uuid",
		"echo 536870912 > " + root + "/bus/nd/devices/namespace0.0/size",
		"echo pfn > " + root + "/bus/nd/devices/namespace0.0/holder_class",
		"echo " + uuidRE + " > " + root + "/bus/nd/devices/pfn0.0/uuid",
		"echo pmem > " + root + "/bus/nd/devices/pfn0.0/mode",
		"echo namespace0.0 > " + root + "/bus/nd/devices/pfn0.0/namespace",
		"echo pfn0.0 > " + root + "/bus/nd/drivers/nd_pmem/bind",
		"mkfs.xfs -q -f -m reflink=0 /dev/pmem0",
		"mount -o dax /dev/pmem0 .*",
	})
}

func TestRegionCreateBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		rc   int
		msg  string
	}{
		{[]string{"region", "create"}, exitcode.Invalid, "one of --device cxlvN or --memdev memN"},
		{[]string{"region", "create", "--memdev", "mem0", "--device", "cxlv0"}, exitcode.Invalid, "one of --device"},
		{[]string{"region", "create", "--memdev", "mem0", "--uuid", "nope"}, exitcode.Invalid, "invalid uuid"},
		{[]string{"region", "create", "--memdev", "mem0", "--size", "100M"}, exitcode.Invalid, "region size 100M is not a multiple of 256M"},
		{[]string{"region", "create", "--memdev", "mem0", "--size", "lots"}, exitcode.Invalid, "--size"},
		{[]string{"region", "create", "--memdev", "mem0", "--namespace", "btt"}, exitcode.Invalid, "unknown namespace mode"},
		{[]string{"region", "create", "--memdev", "mem0", "--fs", "xfs"}, exitcode.Invalid, "needs --mount"},
		{[]string{"region", "create", "--memdev", "mem9"}, exitcode.NotFound, "memdev mem9 not found"},
		// 6.1: RAM through devdax and kmem, whose module is not loaded here.
		{[]string{"region", "create", "--memdev", "mem0", "--type", "ram"}, exitcode.NotSupported,
			"module kmem is not loaded"},
		{[]string{"region", "create", "--memdev", "mem0", "--type", "ram", "--fs", "xfs"}, exitcode.Invalid, "--fs is for pmem regions"},
		{[]string{"region", "create", "--memdev", "mem0", "--type", "ram", "--online", "kernel"}, exitcode.Invalid, "use movable, normal or none"},
		{[]string{"region", "create", "--memdev", "mem0", "--online", "none"}, exitcode.Invalid, "--online is for RAM regions"},
		{[]string{"region", "create", "--memdev", "mem0", "--type", "dram"}, exitcode.Invalid, "unknown region type"},
		{[]string{"region", "destroy"}, exitcode.Invalid, "needs region names"},
		{[]string{"region", "destroy", "region7"}, exitcode.NotFound, "region region7 not found"},
		{[]string{"namespace", "create"}, exitcode.Invalid, "needs --region"},
		{[]string{"namespace", "create", "--region", "region0", "--mode", "none"}, exitcode.Invalid, "--mode fsdax, devdax or raw"},
		{[]string{"namespace", "create", "--region", "region0"}, exitcode.NotFound, "nd region region0 not found"},
		{[]string{"namespace", "destroy", "namespace3.0"}, exitcode.NotFound, "namespace namespace3.0 not found"},
	} {
		out, errOut, rc := cxlvctl(t, "qemu-bare", c.args...)
		if rc != c.rc || !strings.Contains(errOut, c.msg) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: rc %d, stderr %q, stdout %q; want rc %d and one line with %q", c.args, rc, errOut, out, c.rc, c.msg)
		}
	}
}

func TestRegionList(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "qemu-region-devdax", "region", "list")
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errOut)
	}
	matchLines(t, out, []string{
		`REGION +UUID +SIZE +DECODER +TARGETS +STATE +ND_REGION +NAMESPACES *`,
		`region0 +` + uuidRE + ` +512M +decoder0.0 +decoder2.0 +commit +region0 +namespace0.0:devdax *`,
	})
	out, _, rc = cxlvctl(t, "qemu-region-devdax", "region", "list", "--json")
	var js []struct {
		Region   string   `json:"region"`
		UUID     string   `json:"uuid"`
		Targets  []string `json:"targets"`
		NDRegion struct {
			Namespaces []struct {
				Dev     string `json:"dev"`
				Chardev string `json:"chardev"`
			} `json:"namespaces"`
		} `json:"nd_region"`
	}
	if err := json.Unmarshal([]byte(out), &js); rc != 0 || err != nil {
		t.Fatalf("rc %d, %v: %s", rc, err, out)
	}
	if len(js) != 1 || js[0].Region != "region0" || js[0].Targets[0] != "decoder2.0" ||
		len(js[0].NDRegion.Namespaces) == 0 || js[0].NDRegion.Namespaces[0].Dev != "namespace0.0" {
		t.Errorf("region list --json: %s", out)
	}
	if out, _, rc := cxlvctl(t, "qemu-bare", "region", "list", "--json"); rc != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("no regions: rc %d, %q", rc, out)
	}
}

func TestRegionDestroyDryRun(t *testing.T) {
	out, root := dryRun(t, "qemu-region-devdax", "region", "destroy", "--force", "region0")
	matchLines(t, out, []string{
		"echo dax0.0 > " + root + "/bus/nd/drivers/dax_pmem/unbind",
		"echo '' > " + root + "/bus/nd/devices/dax0.0/namespace",
		"echo '' > " + root + "/bus/nd/devices/namespace0.0/holder_class",
		"echo 0 > " + root + "/bus/nd/devices/namespace0.0/size",
		"echo region0 > " + root + "/bus/cxl/drivers/cxl_region/unbind",
		"echo 0 > " + root + "/bus/cxl/devices/region0/commit",
		"echo '' > " + root + "/bus/cxl/devices/region0/target0",
		"echo 0 > " + root + "/bus/cxl/devices/decoder2.0/dpa_size",
		"echo region0 > " + root + "/bus/cxl/devices/decoder0.0/delete_region",
	})
}

// TestRegionCreateOnDevice: --device names a cxl_virt device; its memdev
// (256 MiB here) gets the region.
func TestRegionCreateOnDevice(t *testing.T) {
	out, root := dryRun(t, "cxlv-bare", "region", "create", "--device", "cxlv0", "--namespace", "devdax")
	matchLines(t, out, []string{
		"echo region0 > " + root + "/bus/cxl/devices/decoder0.0/create_pmem_region",
		"echo 256 > " + root + "/bus/cxl/devices/region0/interleave_granularity",
		"echo 1 > " + root + "/bus/cxl/devices/region0/interleave_ways",
		"echo " + uuidRE + " > " + root + "/bus/cxl/devices/region0/uuid",
		"echo 0x10000000 > " + root + "/bus/cxl/devices/region0/size",
		"echo pmem > " + root + "/bus/cxl/devices/decoder2.0/mode",
		"echo 0x10000000 > " + root + "/bus/cxl/devices/decoder2.0/dpa_size",
		"echo decoder2.0 > " + root + "/bus/cxl/devices/region0/target0",
		"echo 1 > " + root + "/bus/cxl/devices/region0/commit",
		"echo region0 > " + root + "/bus/cxl/drivers/cxl_region/bind",
		"echo " + uuidRE + " > " + root + "/bus/nd/devices/namespace0.0/uuid",
		"echo 268435456 > " + root + "/bus/nd/devices/namespace0.0/size",
		"echo dax > " + root + "/bus/nd/devices/namespace0.0/holder_class",
		"echo " + uuidRE + " > " + root + "/bus/nd/devices/dax0.0/uuid",
		"echo pmem > " + root + "/bus/nd/devices/dax0.0/mode",
		"echo namespace0.0 > " + root + "/bus/nd/devices/dax0.0/namespace",
		"echo dax0.0 > " + root + "/bus/nd/drivers/dax_pmem/bind",
	})
	if _, errOut, rc := cxlvctl(t, "cxlv-bare", "region", "create", "--device", "cxlv3"); rc != exitcode.NotFound || !strings.Contains(errOut, "cxlv3 not found") {
		t.Errorf("unknown device: rc %d, %q", rc, errOut)
	}
}

// region create --device takes a name as every command does (virt.Resolve):
// memN means the device that has it, an interleave set's member the set.
func TestRegionCreateDeviceResolved(t *testing.T) {
	const u = "8b508d2a-8016-476e-888e-45c6fafeb447"
	byDevice, _ := dryRun(t, "cxlv-bare", "region", "create", "--device", "cxlv0", "--uuid", u)
	byMemdev, _ := dryRun(t, "cxlv-bare", "region", "create", "--device", "mem0", "--uuid", u)
	if byDevice != byMemdev || !strings.Contains(byDevice, "create_pmem_region") {
		t.Errorf("--device mem0 planned\n%s\nwant what --device cxlv0 plans:\n%s", byMemdev, byDevice)
	}
	for _, name := range []string{"cxlv0", "mem3"} {
		_, errOut, rc := cxlvctl(t, "cxlv-set-2x2", "region", "create", "--device", name)
		if want := "mem1 has no free endpoint decoder"; rc == 0 || !strings.Contains(errOut, want) {
			t.Errorf("set, --device %s: exit %d, %q; want the set's first member, mem1: %q", name, rc, errOut, want)
		}
	}
	for name, code := range map[string]int{"mem5": exitcode.NotFound, "cxlv00": exitcode.Invalid, "cxlv7": exitcode.NotFound} {
		if _, errOut, rc := cxlvctl(t, "cxlv-bare", "region", "create", "--device", name); rc != code {
			t.Errorf("--device %s: exit %d (%s), want %d", name, rc, errOut, code)
		}
	}
}
