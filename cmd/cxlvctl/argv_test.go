package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/writer/writertest"
)

// normalizeCases: each command line as users type it and as urfave/cli is
// then given it. TestNormalizeCoversEveryCommand keeps every command here.
var normalizeCases = []struct{ in, want []string }{
	// region destroy: flags before, after and between names, globals after.
	{[]string{"region", "destroy", "region0", "--keep-namespaces"}, []string{"region", "destroy", "--keep-namespaces", "--", "region0"}},
	{[]string{"region", "destroy", "--keep-namespaces", "region0"}, []string{"region", "destroy", "--keep-namespaces", "--", "region0"}},
	{[]string{"region", "destroy", "region0", "--dry-run", "region1"}, []string{"--dry-run", "region", "destroy", "--", "region0", "region1"}},
	{[]string{"region", "destroy", "region0", "--keep-namespaces=true"}, []string{"region", "destroy", "--keep-namespaces=true", "--", "region0"}},
	{[]string{"region", "destroy", "--", "-odd", "--dry-run"}, []string{"region", "destroy", "--", "-odd", "--dry-run"}},
	{[]string{"--dry-run", "region", "destroy", "region0"}, []string{"--dry-run", "region", "destroy", "--", "region0"}},
	// Global flags with values, in both forms, anywhere.
	{[]string{"region", "list", "--sysfs-root", "/s", "--json"}, []string{"--sysfs-root=/s", "region", "list", "--json"}},
	{[]string{"--proc-root=/p", "region", "list", "-j", "--debugfs-root", "/d"}, []string{"--proc-root=/p", "--debugfs-root=/d", "region", "list", "--json"}},
	{[]string{"region", "create", "--memdev", "mem0", "-s", "512M", "--timeout=1m", "--uuid", "-leading-dash"},
		[]string{"region", "create", "--memdev=mem0", "--size=512M", "--timeout=1m", "--uuid=-leading-dash"}},
	{[]string{"region", "create", "-tram", "--memdev", "mem0"}, []string{"region", "create", "--type=ram", "--memdev=mem0"}},
	{[]string{"region", "create", "-jt", "ram", "-s512M"}, []string{"region", "create", "--json", "--type=ram", "--size=512M"}},
	{[]string{"namespace", "create", "-r", "region0", "--mode=devdax", "--dry-run"}, []string{"--dry-run", "namespace", "create", "--region=region0", "--mode=devdax"}},
	{[]string{"namespace", "destroy", "namespace0.0", "namespace0.1", "--dry-run"}, []string{"--dry-run", "namespace", "destroy", "--", "namespace0.0", "namespace0.1"}},
	{[]string{"namespace", "destroy", "--", "-namespace"}, []string{"namespace", "destroy", "--", "-namespace"}},
	{[]string{"remove", "cxlv0", "--force"}, []string{"remove", "--force", "--", "cxlv0"}},
	{[]string{"remove", "-f", "cxlv0", "--dry-run"}, []string{"--dry-run", "remove", "--force", "--", "cxlv0"}},
	{[]string{"create", "--size=1G", "--memstart", "4G", "--pmem", "--serial", "0x7"},
		[]string{"create", "--size=1G", "--memstart=4G", "--pmem", "--serial=0x7"}},
	{[]string{"remove", "cxlv0", "--release", "-f"}, []string{"remove", "--release", "--force", "--", "cxlv0"}},
	{[]string{"release", "0x1c0000000", "--dry-run"}, []string{"--dry-run", "release", "--", "0x1c0000000"}},
	{[]string{"create", "--size", "2G", "--borrow", "--pmem"}, []string{"create", "--size=2G", "--borrow", "--pmem"}},
	{[]string{"poison", "inject", "cxlv0", "--dpa", "0x1000", "--dry-run"}, []string{"--dry-run", "poison", "inject", "--dpa=0x1000", "--", "cxlv0"}},
	{[]string{"poison", "clear", "-n", "namespace0.0", "mem0", "--offset=2M"}, []string{"poison", "clear", "--namespace=namespace0.0", "--offset=2M", "--", "mem0"}},
	{[]string{"poison", "list", "cxlv0", "-j"}, []string{"poison", "list", "--json", "--", "cxlv0"}},
	{[]string{"event", "inject", "mem0", "--type", "dram", "--dpa", "4K", "--dry-run"}, []string{"--dry-run", "event", "inject", "--type=dram", "--dpa=4K", "--", "mem0"}},
	{[]string{"list", "-jv"}, []string{"list", "--json", "--verbose"}},
	{[]string{"list", "--json", "--sysfs-root", "/s"}, []string{"--sysfs-root=/s", "list", "--json"}},
	{[]string{"ranges", "--size", "4G", "--json"}, []string{"ranges", "--size=4G", "--json"}},
	{[]string{"node-tables", "-o", "t.cpio", "--size", "1G", "--memstart", "4G"}, []string{"node-tables", "--output=t.cpio", "--size=1G", "--memstart=4G"}},
	{[]string{"info", "-j"}, []string{"info", "--json"}},
	{[]string{"completion", "zsh"}, []string{"completion", "--", "zsh"}},
	{[]string{"version", "--sysfs-root", "/s"}, []string{"--sysfs-root=/s", "version"}},
	{[]string{"--version"}, []string{"--version"}},
	{[]string{"help", "region", "destroy"}, []string{"help", "--", "region", "destroy"}},
	// -h anywhere shows that command's help, whatever else the line has.
	{[]string{"region", "destroy", "region0", "-h"}, []string{"region", "destroy", "--help"}},
	{[]string{"region", "--help"}, []string{"region", "--help"}},
	{[]string{"__man", "/tmp/man1"}, []string{"__man", "--", "/tmp/man1"}},
	// __complete reads the raw words itself.
	{[]string{"--sysfs-root", "/s", "__complete", "region", "create", "--memdev", ""},
		[]string{"--sysfs-root=/s", "__complete", "region", "create", "--memdev", ""}},
}

func TestNormalizeArgs(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, tc := range normalizeCases {
		got, err := normalizeArgs(app, append([]string{"cxlvctl"}, tc.in...))
		if want := append([]string{"cxlvctl"}, tc.want...); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("normalize %q = %q, %v; want %q", tc.in, got, err, want)
		}
	}
}

// TestNormalizeCoversEveryCommand: a command added later gets its cases.
func TestNormalizeCoversEveryCommand(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range normalizeCases {
		covered[commandPath(tc.want)] = true
	}
	eachCommand(newApp(io.Discard, io.Discard).Commands, true, func(path string, c *cli.Command) {
		if len(c.Subcommands) == 0 && !covered[path] {
			t.Errorf("no normalizeCases line for %q", path)
		}
	})
}

// commandPath is the command words of a normalized line.
func commandPath(args []string) string {
	var words []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			words = append(words, a)
			if a == "__complete" {
				break
			}
		}
	}
	return strings.Join(words, " ")
}

// Refused lines: exit 2, one line naming the fix, and no command runs.
func TestNormalizeRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"region", "destroy", "region0", "--keep-namespace"}, "unknown flag --keep-namespace for 'cxlvctl region destroy': did you mean --keep-namespaces?"},
		{[]string{"region", "destroy", "-region0"}, "a name that starts with '-' goes after --"},
		{[]string{"--bogus", "list"}, "unknown flag --bogus for 'cxlvctl'"},
		{[]string{"list", "--json", "--bogus=1"}, "unknown flag --bogus for 'cxlvctl list'"},
		{[]string{"--json", "list"}, "unknown flag --json for 'cxlvctl'"}, // --json is list's, not global
		{[]string{"list", "-jx"}, "unknown flag -jx"},
		{[]string{"region", "create", "--memdev"}, "--memdev needs a value"},
		{[]string{"region", "create", "-jt"}, "--type needs a value"},
		{[]string{"remove", "cxlv0", "--forc"}, "did you mean --force?"},
		{[]string{"lst"}, "unknown command 'lst': did you mean 'list'?"},
		{[]string{"region", "destory", "region0"}, "unknown command 'region destory': did you mean 'region destroy'?"},
		{[]string{"frobnicate"}, "unknown command 'frobnicate' (`cxlvctl --help` lists the commands)"},
		{[]string{"help", "regoin"}, "unknown command 'regoin': did you mean 'region'?"},
		{[]string{"region", "create", "--memdev"}, "--memdev needs a value"},
		{[]string{"region", "create", "--memdev="}, "--memdev needs a value, not an empty one"},
		{[]string{"region", "create", "--memdev", "mem0", "--timeout"}, "--timeout needs a value, a duration such as 30s or 2m"},
		{[]string{"region", "create", "--memdev", "mem0", "--timeout", "30"}, "--timeout 30: a duration needs a unit: --timeout 30s"},
		{[]string{"namespace", "create", "--region", "region0", "--timeout=-1s"}, "--timeout -1s: must be positive"},
		{[]string{"create", "--timeout", "soon"}, "--timeout soon: not a duration: use e.g. 30s"},
		{[]string{"create", "--memstart", "4G", "--size", "0"}, "--size 0: too small: a device needs at least 256M"},
		{[]string{"region", "create", "--memdev", "mem0", "--size=0G"}, "--size 0G: too small: a region is at least 256M"},
		{[]string{"namespace", "create", "--region", "region0", "-s", "0"}, "--size 0: too small"},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--serial", "1G"}, "--serial 1G: a serial is a number (decimal or 0x hex), not a size"},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--serial", "0"}, "--serial 0: serial 0 is refused"},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--serial", "1_000"}, "--serial 1_000: a serial is a number (decimal or 0x hex), not a size: digits only, e.g. --serial 1000"},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--serial", "0o17"}, "--serial 0o17: a serial is a number"},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--serial", "+5"}, "--serial +5: a serial is a number"},
		{[]string{"create", "--memstart", "0", "--size", "1G"}, "--memstart 0: the first MiB of physical memory is never a reserved range"},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--ways", "four"}, "--ways four: a count from 1 up, e.g. --ways 2"},
		{[]string{"event", "inject", "cxlv0", "--type", "dram", "--log", "loud"}, `--log "loud": use one of info, warn, fail, fatal`},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--read-latency", "0ns"}, "--read-latency 0ns: invalid \"0ns\": must be at least 1 ns"},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--write-latency", "70us"}, "--write-latency 70us: invalid \"70us\": more than the 65534 ns a CDAT entry holds"},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--read-bandwidth", "30GiB"}, "--read-bandwidth 30GiB: invalid \"30GiB\": not a bandwidth"},
		{[]string{"create", "--memstart", "4G", "--size", "1G", "--write-bandwidth", "66G"}, "--write-bandwidth 66G: invalid \"66G\": more than the 65534 MB/s"},
		{[]string{"list", "--json=maybe"}, `--json takes no value (got "maybe")`},
		{[]string{"list", "--version"}, "--version runs no command"},
	} {
		out, errOut, rc := cxlvctl(t, "qemu-region-devdax", tc.args...)
		if rc != exitcode.Invalid || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.says) {
			t.Errorf("cxlvctl %q: exit %d, stdout %q, stderr %q; want exit 2 and one line saying %q", tc.args, rc, out, errOut, tc.says)
		}
	}
}

// recordWrites makes the kernel writes of commands run without --dry-run
// go to a recorder for the rest of the test: the fixture trees are plain
// files that a real write would change.
func recordWrites(t *testing.T) *writertest.Recorder {
	t.Helper()
	rec := &writertest.Recorder{}
	saved := kernelWriter
	kernelWriter = rec
	t.Cleanup(func() { kernelWriter = saved })
	return rec
}

// A line cxlvctl cannot fully understand or resolve writes nothing to the
// kernel: run without --dry-run on captured trees, against the recorder.
func TestMisreadLinesWriteNothing(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		args    []string
		code    int
	}{
		{"qemu-region-devdax", []string{"region", "destroy", "region0", "--keep-namespace"}, exitcode.Invalid},
		{"qemu-region-devdax", []string{"region", "destroy", "region0", "--dry-rn"}, exitcode.Invalid},
		{"qemu-region-devdax", []string{"region", "destroy", "region0", "-n"}, exitcode.Invalid},
		{"qemu-region-devdax", []string{"region", "destroy", "region0", "--keep-namespaces=maybe"}, exitcode.Invalid},
		{"qemu-region-devdax", []string{"region", "destroy", "region0", "region9"}, exitcode.NotFound},
		{"qemu-region-devdax", []string{"region", "destroy", "region0", "region0"}, exitcode.Invalid},
		{"qemu-region-devdax", []string{"region", "destroy", "region0", "--", "--dry-run"}, exitcode.NotFound},
		{"qemu-region-devdax", []string{"region", "destory", "region0"}, exitcode.Invalid},
		{"qemu-region-fsdax", []string{"region", "destroy", "region0", "regionBOGUS"}, exitcode.NotFound},
		{"cxlv-region-fsdax", []string{"namespace", "destroy", "namespace0.0", "namespace9.9"}, exitcode.NotFound},
		{"cxlv-region-fsdax", []string{"namespace", "destroy", "namespace0.0", "--forc"}, exitcode.Invalid},
		{"cxlv-region-fsdax", []string{"remove", "cxlv0", "--forc"}, exitcode.Invalid},
		{"cxlv-region-fsdax", []string{"remove", "cxlv0", "cxlv1"}, exitcode.NotFound},
		{"cxlv-region-fsdax", []string{"remove", "cxlv7", "--force"}, exitcode.NotFound},
		{"cxlv-region-fsdax", []string{"region", "create", "--device", "cxlv0", "--timeout", "30"}, exitcode.Invalid},
		{"cxlv-region-fsdax", []string{"region", "create", "--device", "cxlv0", "--size", "0"}, exitcode.Invalid},
		{"cxlv-region-fsdax", []string{"region", "create", "--device", "cxlv0", "extra"}, exitcode.Invalid},
		{"cxlv-bare", []string{"create", "--memstart", "6G", "--size", "1G", "--serial", "0"}, exitcode.Invalid},
		{"cxlv-bare", []string{"create", "--memstart", "6G", "--size", "1G", "--pmem", "--wiat"}, exitcode.Invalid},
		{"cxlv-bare", []string{"create", "--memstart", "6G", "--size", "1G", "extra"}, exitcode.Invalid},
		{"cxlv-bare", []string{"remove", "cxlv0", "--", "-f"}, exitcode.Invalid},
		{"cxlv-bare", []string{"namespace", "create", "--region", "region0", "--mode", "devdax", "--timeout", "5"}, exitcode.Invalid},
	} {
		rec := recordWrites(t)
		_, errOut, rc := cxlvctl(t, tc.fixture, tc.args...)
		if rc != tc.code || len(rec.Ops()) != 0 {
			t.Errorf("%s: cxlvctl %q: exit %d (%q), %d kernel writes %v; want exit %d and none",
				tc.fixture, tc.args, rc, strings.TrimSpace(errOut), len(rec.Ops()), rec.Ops(), tc.code)
		}
	}
}

// A flag means the same wherever it stands: the printed plan of a line with
// the flag after the name is the plan with the flag before it.
func TestFlagPlacementKeepsThePlan(t *testing.T) {
	root := regexp.QuoteMeta(fixtureRoot("qemu-region-devdax"))
	for _, tc := range []struct {
		fixture     string
		after, want []string
		has, hasNot string // a write the plan has, one it must not have
	}{
		{"qemu-region-devdax", []string{"region", "destroy", "region0", "--force", "--dry-run"}, []string{"--dry-run", "region", "destroy", "--force", "region0"},
			root + "/bus/nd/devices/namespace0.0/size", ""},
		{"qemu-region-devdax", []string{"region", "destroy", "region0", "--keep-namespaces", "--dry-run"},
			[]string{"--dry-run", "region", "destroy", "--keep-namespaces", "region0"},
			root + "/bus/cxl/devices/region0/commit", "/bus/nd/"},
		{"cxlv-region-fsdax", []string{"remove", "cxlv0", "--force", "--dry-run"}, []string{"--dry-run", "remove", "--force", "cxlv0"},
			"cxlv_dev_id=0 > ", ""},
		{"cxlv-region-fsdax", []string{"namespace", "destroy", "namespace0.0", "-f", "--dry-run"}, []string{"--dry-run", "namespace", "destroy", "--force", "namespace0.0"},
			"/bus/nd/devices/namespace0.0/size", ""},
	} {
		rec := recordWrites(t)
		out, errOut, rc := cxlvctl(t, tc.fixture, tc.after...)
		want, _, wantRC := cxlvctl(t, tc.fixture, tc.want...)
		if rc != 0 || wantRC != 0 || out != want || len(rec.Ops()) != 0 {
			t.Errorf("%q: exit %d (%q), %d writes, plan\n%s\nwant the plan of %q (exit %d):\n%s", tc.after, rc, errOut, len(rec.Ops()), out, tc.want, wantRC, want)
			continue
		}
		if !regexp.MustCompile(tc.has).MatchString(out) || (tc.hasNot != "" && strings.Contains(out, tc.hasNot)) {
			t.Errorf("%q: plan lacks %q or has %q:\n%s", tc.after, tc.has, tc.hasNot, out)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"help"}, "COMMANDS:"},
		{[]string{"--help"}, "COMMANDS:"},
		{[]string{"-h"}, "GLOBAL OPTIONS:"},
		{[]string{"help", "create"}, "--memstart"},
		{[]string{"help", "region", "destroy"}, "--keep-namespaces"},
		{[]string{"region", "destroy", "--help"}, "--keep-namespaces"},
		{[]string{"help", "namespace"}, "create"},
		{[]string{"version"}, "cxlvctl " + version + "\ncxl_virt not loaded\n"},
		{[]string{"--version"}, "cxlvctl " + version + "\ncxl_virt not loaded\n"},
	} {
		out, errOut, rc := cxlvctl(t, "qemu-bare", tc.args...)
		if rc != 0 || !strings.Contains(out, tc.says) || errOut != "" {
			t.Errorf("cxlvctl %q: exit %d, %q, %q; want %q", tc.args, rc, out, errOut, tc.says)
		}
	}
	// No command: the usage on stderr and exit 1, as cxl and ndctl do.
	if out, errOut, rc := cxlvctl(t, "qemu-bare"); rc != exitcode.Failure || out != "" || !strings.Contains(errOut, "COMMANDS:") {
		t.Errorf("cxlvctl alone: exit %d, %q, %q; want exit 1 and the usage on stderr", rc, out, errOut)
	}
}

// With the module loaded (a tree captured with it), version prints its
// version and srcversion; a CLI of another version warns on stderr.
func TestVersionOfTheLoadedModule(t *testing.T) {
	mod := filepath.Join(fixtureDir("cxlv-bare"), "sys", "module", "cxl_virt")
	modVersion, err1 := os.ReadFile(filepath.Join(mod, "version"))
	src, err2 := os.ReadFile(filepath.Join(mod, "srcversion"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	want := "cxlvctl " + version + "\ncxl_virt " + strings.TrimSpace(string(modVersion)) + " srcversion " + strings.TrimSpace(string(src)) + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if out, errOut, rc := cxlvctl(t, "cxlv-bare", args...); rc != 0 || out != want || errOut != "" {
			t.Errorf("%q: exit %d, %q, %q; want %q and no warning", args, rc, out, errOut, want)
		}
	}
	saved := version
	version = "0.0-other"
	t.Cleanup(func() { version = saved })
	out, errOut, rc := cxlvctl(t, "cxlv-bare", "version")
	if rc != 0 || !strings.HasPrefix(out, "cxlvctl 0.0-other\n") ||
		errOut != "cxlvctl: warning: cxlvctl 0.0-other and cxl_virt "+strings.TrimSpace(string(modVersion))+" differ: install the cxlvctl of the loaded module\n" {
		t.Errorf("version mismatch: exit %d, %q, %q", rc, out, errOut)
	}
}

// cxlvctl's version is the module's MODULE_VERSION of the same tree.
func TestVersionIsTheModules(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "kmod", "ctl", "cxlv_main.c"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`MODULE_VERSION\("([^"]+)"\)`).FindSubmatch(src)
	if m == nil || string(m[1]) != version {
		t.Errorf("kmod MODULE_VERSION %q, cxlvctl version %q", m, version)
	}
}

func TestClosest(t *testing.T) {
	cmds := []string{"create", "remove", "list", "ranges", "info", "region", "namespace"}
	for in, want := range map[string]string{
		"lst": "list", "regin": "region", "namespaces": "namespace", "rm": "", "crate": "create", "xyzzy": "",
	} {
		if got := closest(in, cmds); got != want {
			t.Errorf("closest(%q) = %q; want %q", in, got, want)
		}
	}
	if !slices.Equal([]int{editDistance("", "ab"), editDistance("kitten", "sitting")}, []int{2, 3}) {
		t.Error("editDistance")
	}
}
