package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/internal/fixturetest"
	"github.com/cxlv/cxlv/writer"
)

// The busy fixture is cxlv-region-fsdax with a partition of pmem0 mounted
// (mountinfo, by major:minor), device-mapper holding the partition and
// swap on pmem0 (test/fixtures/cxlv-region-fsdax-busy/NOTES). busyStages
// peel the users off one by one in a copy: each is the first found in turn.
var busyStages = []struct {
	user string
	peel func(t *testing.T, dir string) // takes the user away
}{
	{"/dev/pmem0p1 mounted on /mnt/x", func(t *testing.T, dir string) {
		p := filepath.Join(dir, "proc", "self", "mountinfo")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for line := range strings.Lines(string(b)) {
			if !strings.Contains(line, " 259:1 ") {
				keep = append(keep, line)
			}
		}
		if err := os.WriteFile(p, []byte(strings.Join(keep, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{"dm-0 holds pmem0p1", func(t *testing.T, dir string) {
		holders, _ := filepath.Glob(filepath.Join(dir, "sys", "devices", "*", "cxl_virt", "*", "*", "*", "*", "*", "pfn0.0", "block", "pmem0", "pmem0p1", "holders", "dm-0"))
		if len(holders) != 1 {
			t.Fatalf("holders/dm-0: found %v", holders)
		}
		if err := os.Remove(holders[0]); err != nil {
			t.Fatal(err)
		}
	}},
	{"swap on /dev/pmem0", func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, "proc", "swaps")); err != nil {
			t.Fatal(err)
		}
	}},
}

// destroyLines are the command lines that would take namespace0.0 of the
// busy fixture away.
var destroyLines = [][]string{
	{"region", "destroy", "region0"},
	{"region", "destroy", "--force", "region0"},
	{"region", "destroy", "--keep-namespaces", "region0"},
	{"remove", "--force", "cxlv0"},
	{"remove", "--force", "--keep-namespaces", "cxlv0"},
	{"remove", "-f", "all"},
	{"namespace", "destroy", "--force", "namespace0.0"},
}

// A namespace in use is refused by every destroy, --force or not, with
// one line that names the user and --force, exit 5, no write; the dry run
// says the same.
func TestInUseRefusedEvenWithForce(t *testing.T) {
	dir := fixturetest.Copy(t, fixtureDir("cxlv-region-fsdax-busy"))
	for _, stage := range busyStages {
		for _, args := range destroyLines {
			rec := recordWrites(t)
			out, errOut, rc := cxlvctlAt(t, dir, args...)
			if rc != exitcode.Busy || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, stage.user+" (namespace0.0)") ||
				!strings.Contains(errOut, "--force does not tear down a namespace in use") || len(rec.Ops()) != 0 {
				t.Errorf("%s: cxlvctl %q: exit %d, stdout %q, stderr %q, writes %v; want exit 5, one line naming %q and --force, no write",
					stage.user, args, rc, out, errOut, rec.Ops(), stage.user)
			}
			dryOut, dryErr, dryRC := cxlvctlAt(t, dir, append([]string{"--dry-run"}, args...)...)
			if dryRC != rc || dryErr != errOut || dryOut != "" {
				t.Errorf("%s: --dry-run %q: exit %d, stdout %q, stderr %q; want the real run's exit %d and %q", stage.user, args, dryRC, dryOut, dryErr, rc, errOut)
			}
		}
		stage.peel(t, dir)
	}
	// No user left: the label still wants --force.
	rec := recordWrites(t)
	_, errOut, rc := cxlvctlAt(t, dir, "region", "destroy", "region0")
	if want := "cxlvctl: region destroy region0: namespace0.0 (fsdax /dev/pmem0, 256M) holds data and a label: --force destroys them, --keep-namespaces keeps the label (region create --uuid brings it back)\n"; rc != exitcode.Busy || errOut != want || len(rec.Ops()) != 0 {
		t.Errorf("region destroy: exit %d, %q, writes %v; want exit 5 and %q", rc, errOut, rec.Ops(), want)
	}
	if _, errOut, rc := cxlvctlAt(t, dir, "region", "destroy", "--force", "region0"); rc != 0 || len(rec.Ops()) != 9 {
		t.Errorf("region destroy --force with no user left: exit %d, %q, writes %v; want the 9 writes of the teardown", rc, errOut, rec.Ops())
	}
}

// The complete, ordered plans of --force and --keep-namespaces on a
// captured tree, and what they print: the uuid and the commands that bring
// kept labels back.
func TestForcePlans(t *testing.T) {
	root := fixtureRoot("cxlv-region-fsdax")
	namespace := []string{
		root + "/bus/nd/drivers/nd_pmem/unbind <- \"pfn0.0\"",
		root + "/bus/nd/devices/pfn0.0/namespace <- \"\"",
		root + "/bus/nd/devices/namespace0.0/holder_class <- \"\"",
		root + "/bus/nd/devices/namespace0.0/size <- \"0\"",
	}
	region := []string{
		root + "/bus/cxl/drivers/cxl_region/unbind <- \"region0\"",
		root + "/bus/cxl/devices/region0/commit <- \"0\"",
		root + "/bus/cxl/devices/region0/target0 <- \"\"",
		root + "/bus/cxl/devices/decoder2.0/dpa_size <- \"0\"",
		root + "/bus/cxl/devices/decoder0.0/delete_region <- \"region0\"",
	}
	remove := filepath.Join(fixtureDir("cxlv-region-fsdax"), "debugfs", "cxl", "cxlv", "remove") + " <- \"cxlv_dev_id=0\""
	uuid, err := os.ReadFile(filepath.Join(root, "bus", "cxl", "devices", "region0", "uuid"))
	if err != nil {
		t.Fatal(err)
	}
	u := strings.TrimSpace(string(uuid))
	back := "`cxlvctl region create --device cxlv0 --uuid " + u + " --namespace none`"
	for _, tc := range []struct {
		args   []string
		writes []string
		out    string
	}{
		{[]string{"region", "destroy", "--force", "region0"}, append(append([]string{}, namespace...), region...), "destroyed region0\n"},
		{[]string{"namespace", "destroy", "--force", "namespace0.0"}, namespace, "destroyed namespace0.0\n"},
		{[]string{"region", "destroy", "--keep-namespaces", "region0"}, region,
			"destroyed region0\nkept the labels of namespace0.0 (region0, uuid " + u + "): bring them back with " + back + "\n"},
		{[]string{"remove", "--force", "cxlv0"}, append(append(append([]string{}, namespace...), region...), remove), "removed cxlv0\n"},
		{[]string{"remove", "--force", "--keep-namespaces", "cxlv0"}, append(append([]string{}, region...), remove),
			"removed cxlv0\nkept the labels of namespace0.0 (region0, uuid " + u + "): create the device again on the same range (`cxlvctl create --memstart 0x100000000 --size 512M --pmem`), then " + back + "\n"},
	} {
		rec := recordWrites(t)
		out, errOut, rc := cxlvctl(t, "cxlv-region-fsdax", tc.args...)
		var got []string
		for _, op := range rec.Ops() {
			got = append(got, op.String())
		}
		if rc != 0 || out != tc.out || strings.Join(got, "\n") != strings.Join(tc.writes, "\n") {
			t.Errorf("cxlvctl %q: exit %d, stderr %q, stdout %q, writes\n%s\nwant stdout %q and writes\n%s", tc.args, rc, errOut, out,
				strings.Join(got, "\n"), tc.out, strings.Join(tc.writes, "\n"))
		}
		// --json says the same, for scripts.
		rec = recordWrites(t)
		out, _, rc = cxlvctl(t, "cxlv-region-fsdax", append(tc.args, "--json")...)
		var js struct {
			Kept []struct {
				UUID       string   `json:"uuid"`
				Namespaces []string `json:"namespaces"`
				Command    string   `json:"bring_back"`
			} `json:"kept"`
		}
		if err := json.Unmarshal([]byte(out), &js); rc != 0 || err != nil || len(rec.Ops()) != len(tc.writes) {
			t.Errorf("cxlvctl %q --json: exit %d, %v, %d writes: %s", tc.args, rc, err, len(rec.Ops()), out)
		}
		if keep := strings.Contains(tc.out, "kept"); keep != (len(js.Kept) == 1) ||
			keep && (js.Kept[0].UUID != u || js.Kept[0].Command != strings.Trim(back, "`") || js.Kept[0].Namespaces[0] != "namespace0.0") {
			t.Errorf("cxlvctl %q --json: kept %+v; want uuid %s and %s", tc.args, js.Kept, u, back)
		}
	}
}

// dryRunCases are command lines run with and without --dry-run: refusals
// (the real run's checks, messages and codes) and plans.
var dryRunCases = []struct {
	fixture string
	args    []string
	rc      int
}{
	{"cxlv-region-fsdax", []string{"region", "destroy", "region0"}, exitcode.Busy},
	{"cxlv-region-fsdax", []string{"region", "destroy", "--force", "region0"}, exitcode.OK},
	{"cxlv-region-fsdax", []string{"region", "destroy", "--keep-namespaces", "region0"}, exitcode.OK},
	{"cxlv-region-fsdax", []string{"region", "destroy", "--force", "region0", "region9"}, exitcode.NotFound},
	{"cxlv-region-fsdax", []string{"namespace", "destroy", "namespace0.0"}, exitcode.Busy},
	{"cxlv-region-fsdax", []string{"namespace", "destroy", "-f", "namespace0.0"}, exitcode.OK},
	{"cxlv-region-fsdax", []string{"remove", "cxlv0"}, exitcode.Busy},
	{"cxlv-region-fsdax", []string{"remove", "mem0"}, exitcode.Busy},
	{"cxlv-region-fsdax", []string{"remove", "--force", "cxlv0"}, exitcode.OK},
	{"cxlv-region-fsdax", []string{"remove", "--force", "all"}, exitcode.OK},
	{"cxlv-region-fsdax", []string{"remove", "--force", "--keep-namespaces", "mem0"}, exitcode.OK},
	{"cxlv-region-fsdax", []string{"remove", "--keep-namespaces", "cxlv0"}, exitcode.Invalid},
	{"cxlv-region-fsdax", []string{"remove", "--force", "--keep-namespaces", "--release", "cxlv0"}, exitcode.Invalid},
	{"cxlv-region-fsdax", []string{"remove", "cxlv0", "mem0"}, exitcode.Invalid},
	{"cxlv-region-fsdax", []string{"remove", "all", "cxlv0"}, exitcode.Invalid},
	{"cxlv-region-fsdax", []string{"namespace", "create", "--region", "region0", "--size", "16T"}, exitcode.Busy},
	{"cxlv-region-fsdax-busy", []string{"remove", "--force", "cxlv0"}, exitcode.Busy},
	{"cxlv-set-2x2", []string{"remove", "mem3"}, exitcode.Invalid},
	{"cxlv-set-2x2", []string{"remove", "cxlv0"}, exitcode.Busy},
	{"cxlv-set-2x2", []string{"remove", "--force", "cxlv0"}, exitcode.OK},
	{"cxlv-set-2x2", []string{"region", "destroy", "region0"}, exitcode.Busy},
	{"cxlv-borrowed", []string{"release", "7G"}, exitcode.NotFound},
	{"cxlv-borrowed", []string{"release", "0x1d0000000"}, exitcode.Busy},
	{"cxlv-borrowed", []string{"release", "0x1b0000000"}, exitcode.OK},
	{"cxlv-borrowed", []string{"remove", "--release", "cxlv0"}, exitcode.OK},
	{"cxlv-bare", []string{"create", "--memstart", "0", "--size", "1G", "--pmem"}, exitcode.Invalid},
	{"cxlv-bare", []string{"create", "--memstart", "4G", "--size", "1G", "--pmem"}, exitcode.Busy},
	{"cxlv-bare", []string{"create", "--memstart", "8G", "--size", "256M", "--pmem"}, exitcode.Invalid},
	{"cxlv-bare", []string{"region", "create", "--device", "cxlv0", "--size", "16T"}, exitcode.Invalid},
	{"cxlv-bare", []string{"region", "create", "--device", "cxlv0", "--size", "512M", "--type", "ram"}, exitcode.NotSupported},
	{"cxlv-ram-movable", []string{"remove", "cxlv0"}, exitcode.Busy},
	{"cxlv-ram-movable", []string{"region", "destroy", "region0"}, exitcode.Busy},
	{"cxlv-ram-movable", []string{"region", "destroy", "--force", "region0"}, exitcode.OK},
	{"cxlv-ram-movable", []string{"remove", "--force", "cxlv0"}, exitcode.OK},
	{"qemu-region-fsdax", []string{"region", "destroy", "region0"}, exitcode.Busy},
}

// echoLine is a recorded write as --dry-run prints it.
func echoLine(t *testing.T, op writer.Op) string {
	var b bytes.Buffer
	if err := (&writer.DryRun{Out: &b}).Write(op.Path, op.Value); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// --dry-run runs every check of the real command up to the first write:
// the same message and exit code where it fails, and where it does not,
// the plan it prints is the writes the real run makes.
func TestDryRunIsTheRealRun(t *testing.T) {
	for _, tc := range dryRunCases {
		rec := recordWrites(t)
		out, errOut, rc := cxlvctl(t, tc.fixture, tc.args...)
		dryOut, dryErr, dryRC := cxlvctl(t, tc.fixture, append([]string{"--dry-run"}, tc.args...)...)
		if rc != tc.rc || dryRC != rc {
			t.Errorf("%s: cxlvctl %q: exit %d (%q), --dry-run exit %d (%q); want %d for both", tc.fixture, tc.args, rc, errOut, dryRC, dryErr, tc.rc)
			continue
		}
		if rc != 0 {
			if dryErr != errOut || out != "" || dryOut != "" || len(rec.Ops()) != 0 {
				t.Errorf("%s: cxlvctl %q: stderr %q, --dry-run %q; stdout %q, %q; writes %v; want the same one line, no output, no write",
					tc.fixture, tc.args, errOut, dryErr, out, dryOut, rec.Ops())
			}
			continue
		}
		var plan strings.Builder
		for _, op := range rec.Ops() {
			plan.WriteString(echoLine(t, op))
		}
		if dryOut != plan.String() || plan.Len() == 0 {
			t.Errorf("%s: --dry-run %q printed\n%s\nthe real run wrote\n%s", tc.fixture, tc.args, dryOut, plan.String())
		}
		if strings.Contains(dryErr, "done in") {
			t.Errorf("%s: --dry-run %q reports work it did not do: %q", tc.fixture, tc.args, dryErr)
		}
	}
}

// Every destructive command prints its plan as JSON with --dry-run --json.
func TestDestroyPlansAsJSON(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		args    []string
		last    string // the path of the last step
	}{
		{"cxlv-region-fsdax", []string{"region", "destroy", "--force", "region0", "--json"}, "/delete_region"},
		{"cxlv-region-fsdax", []string{"namespace", "destroy", "--force", "namespace0.0", "--json"}, "/namespace0.0/size"},
		{"cxlv-region-fsdax", []string{"remove", "--force", "cxlv0", "--json"}, "/remove"},
		{"cxlv-borrowed", []string{"release", "0x1b0000000", "--json"}, "/release"},
	} {
		out, errOut, rc := cxlvctl(t, tc.fixture, append([]string{"--dry-run"}, tc.args...)...)
		var plan struct {
			DryRun bool          `json:"dry_run"`
			Steps  []writer.Step `json:"steps"`
		}
		if err := json.Unmarshal([]byte(out), &plan); rc != 0 || err != nil || !plan.DryRun || len(plan.Steps) == 0 ||
			!strings.HasSuffix(plan.Steps[len(plan.Steps)-1].Path, tc.last) {
			t.Errorf("--dry-run %q: exit %d (%q), %v:\n%s\nwant {\"dry_run\": true, \"steps\": [... %s]}", tc.args, rc, errOut, err, out, tc.last)
		}
	}
}

// create says when it borrows System RAM, in the dry run and in the real
// run, before the write.
func TestCreateSaysItBorrows(t *testing.T) {
	want := regexp.MustCompile("^borrowing 1G of System RAM from the running kernel where the module finds blocks")
	_, errOut, rc := cxlvctl(t, "cxlv-bare", "--dry-run", "create", "--size", "1G", "--pmem")
	if rc != 0 || !want.MatchString(errOut) {
		t.Errorf("--dry-run create --size 1G: exit %d, stderr %q; want it to say it borrows", rc, errOut)
	}
	rec := recordWrites(t)
	_, errOut, _ = cxlvctl(t, "cxlv-bare", "create", "--size", "1G", "--pmem", "--no-wait")
	if !want.MatchString(errOut) || len(rec.Ops()) != 1 {
		t.Errorf("create --size 1G: stderr %q, writes %v; want it to say it borrows, then the write", errOut, rec.Ops())
	}
	_, errOut, _ = cxlvctl(t, "cxlv-bare", "--dry-run", "create", "--memstart", "0x120000000", "--size", "512M", "--pmem")
	if strings.Contains(errOut, "borrow") {
		t.Errorf("create on a reserved range says it borrows: %q", errOut)
	}
}

// The JSON of the destructive commands' real runs has the documented keys
// and types (docs/json.md).
func TestDestroyJSONIsDocumented(t *testing.T) {
	seen := map[string]map[string]string{}
	for _, tc := range []struct {
		fixture string
		args    []string
	}{
		{"cxlv-region-fsdax", []string{"region", "destroy", "--keep-namespaces", "region0", "--json"}},
		{"cxlv-region-fsdax", []string{"namespace", "destroy", "--force", "namespace0.0", "--json"}},
		{"cxlv-region-fsdax", []string{"remove", "--force", "--keep-namespaces", "cxlv0", "--json"}},
		{"cxlv-borrowed", []string{"remove", "--release", "cxlv0", "--json"}},
		{"cxlv-borrowed", []string{"release", "0x1b0000000", "--json"}},
	} {
		recordWrites(t)
		out, errOut, rc := cxlvctl(t, tc.fixture, tc.args...)
		if rc != 0 {
			t.Fatalf("%q: exit %d, %q", tc.args, rc, errOut)
		}
		keyTypes(t, strings.Join(tc.args, " "), []byte(out), seen)
	}
	doc := documentedKeys(t)
	for key, types := range seen {
		for typ, where := range types {
			if doc[key] != typ {
				t.Errorf("key %q is a %s (%s); docs/json.md says %q", key, typ, where, doc[key])
			}
		}
	}
	for _, key := range []string{"destroyed", "kept", "bring_back", "removed", "released", "onlined_blocks"} {
		if seen[key] == nil {
			t.Errorf("no output had %q", key)
		}
	}
}

// Kept labels are reported also when the command fails after keeping them:
// here the module refuses the remove after the region went.
func TestKeptSaidOnFailure(t *testing.T) {
	rec := recordWrites(t)
	rec.FailAt = 6 // the region's 5 writes, then the remove
	out, errOut, rc := cxlvctl(t, "cxlv-region-fsdax", "remove", "--force", "--keep-namespaces", "cxlv0")
	if rc == 0 || !strings.HasPrefix(out, "kept the labels of namespace0.0 (region0, uuid ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("remove failing after the teardown: exit %d, stdout %q, stderr %q; want the kept labels said and the error", rc, out, errOut)
	}
}
