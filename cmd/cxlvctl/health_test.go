package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/mbox"
	"github.com/cxlv/cxlv/sysfs"
)

// detailsFixture was captured on 7.3 with ndctl 81 after poisoning DPAs
// 0x1000 and 0x200000 of mem0 (region0, an fsdax namespace): its
// cxl-list-vvv.json has health, partition_info and media_errors.
const detailsFixture = "cxlv-poison-fsdax"

// fixtureMailbox answers Get Health Info and Identify with the payloads
// that give what the fixture's `cxl list -vvv` printed for memdev, and Get
// FW Info with fwInfo; without it the kernel refuses Get FW Info, as it did
// in the fixture's boot (its cxl_virt had no firmware slots yet).
type fixtureMailbox struct{ health, identify, fwInfo []byte }

func (m fixtureMailbox) Health() (mbox.Health, error)       { return mbox.ParseHealth(m.health) }
func (m fixtureMailbox) Partition() (mbox.Partition, error) { return mbox.ParseIdentify(m.identify) }
func (m fixtureMailbox) Firmware() (mbox.Firmware, error) {
	if m.fwInfo == nil {
		return mbox.Firmware{}, cxlverr.Errorf(cxlverr.ErrNotSupported, "mem0 does not offer Get FW Info")
	}
	return mbox.ParseFirmware(m.fwInfo)
}

// payloads encodes cxl list's health and partition_info objects of a
// memdev back into the device's payloads (CXL r3.0 8.2.9.8.3.1, 8.2.9.8.1.1).
func payloads(t *testing.T, memdev map[string]any) fixtureMailbox {
	t.Helper()
	h, _ := memdev["health"].(map[string]any)
	p, _ := memdev["partition_info"].(map[string]any)
	if h == nil || p == nil {
		t.Fatalf("fixture memdev %v has no health or partition_info", memdev["memdev"])
	}
	num := func(m map[string]any, k string) uint64 {
		n, err := m[k].(json.Number).Int64()
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return uint64(n)
	}
	bit := func(k string) byte {
		if h[k] == true {
			return 1
		}
		return 0
	}
	lvl := func(k string) byte {
		return byte(slices.Index([]string{"normal", "warning", "critical"}, h[k].(string)))
	}
	health := make([]byte, 0x12)
	health[0] = bit("maintenance_needed") | bit("performance_degraded")<<1 | bit("hw_replacement_needed")<<2
	for i, k := range []string{"media_normal", "media_not_ready", "media_persistence_lost", "media_data_lost",
		"media_powerloss_persistence_loss", "media_shutdown_persistence_loss", "media_persistence_loss_imminent",
		"media_powerloss_data_loss", "media_shutdown_data_loss", "media_data_loss_imminent"} {
		if h[k] == true {
			health[1] = byte(i)
		}
	}
	health[2] = lvl("ext_life_used") | lvl("ext_temperature")<<2 | lvl("ext_corrected_volatile")<<4 | lvl("ext_corrected_persistent")<<5
	health[3] = byte(num(h, "life_used_percent"))
	binary.LittleEndian.PutUint16(health[4:], uint16(num(h, "temperature")))
	binary.LittleEndian.PutUint32(health[6:], uint32(num(h, "dirty_shutdowns")))
	binary.LittleEndian.PutUint32(health[10:], uint32(num(h, "volatile_errors")))
	binary.LittleEndian.PutUint32(health[14:], uint32(num(h, "pmem_errors")))
	identify := make([]byte, 0x43)
	for off, k := range map[int]string{0x10: "total_size", 0x18: "volatile_only_size", 0x20: "persistent_only_size", 0x28: "partition_alignment_size"} {
		binary.LittleEndian.PutUint64(identify[off:], num(p, k)/(256<<20))
	}
	return fixtureMailbox{health: health, identify: identify}
}

// fixtureMailboxes makes every memdev's mailbox, for the test, answer what
// gives detailsFixture's cxl list -vvv output, which it returns.
func fixtureMailboxes(t *testing.T) []byte {
	t.Helper()
	vvv, mb := vvvMailbox(t)
	useMailbox(t, mb)
	return vvv
}

// vvvMailbox is the mailbox that gives detailsFixture's cxl list -vvv
// output, returned with it.
func vvvMailbox(t *testing.T) ([]byte, fixtureMailbox) {
	t.Helper()
	vvv, err := os.ReadFile(filepath.Join(fixtureDir(detailsFixture), "cxl-list-vvv.json"))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := cxlListObjects(vvv)
	if err != nil {
		t.Fatal(err)
	}
	return vvv, payloads(t, theirs["mem0"])
}

// useMailbox makes mb every memdev's mailbox for the test.
func useMailbox(t *testing.T, mb mailbox) {
	t.Helper()
	saved := memdevMailbox
	memdevMailbox = func(sysfs.FS, string) (mailbox, error) { return mb, nil }
	t.Cleanup(func() { memdevMailbox = saved })
}

// list --json -H -I --media-errors on the fixture is what cxl list -vvv
// printed there, object by object: health and partition_info from the
// mailbox, media_errors of the memdev (DPA offsets) and of the region
// (offsets into it) from the poison list the fixture's trace holds.
func TestListDetailsMatchCxlList(t *testing.T) {
	vvv := fixtureMailboxes(t)
	recordWrites(t)
	for _, args := range [][]string{{"list", "--json", "-H", "-I", "--media-errors"}, {"list", "-j", "-v", "-L"}} {
		out, errOut, rc := cxlvctl(t, detailsFixture, args...)
		// -v asks for the firmware slots too, which this device had not
		if rc != 0 || errOut != "" && !strings.HasPrefix(errOut, "cxlvctl: warning: no firmware for mem0") {
			t.Fatalf("%q: exit %d: %s", args, rc, errOut)
		}
		for _, key := range []string{`"health": {`, `"partition_info": {`, `"media_errors": [`, `"offset": 2097152`} {
			if !strings.Contains(out, key) {
				t.Errorf("%q lacks %s:\n%s", args, key, out)
			}
		}
		if n := crossCheck(t, []byte(out), vvv, fixtureNdctl(t, detailsFixture)); n != 3 {
			t.Errorf("%q: compared %d objects with cxl list -vvv; want mem0, decoder0.0 and region0", args, n)
		}
	}
	// The table: HEALTH and MEDIA_ERRORS beside the row of the region.
	out, _, rc := cxlvctl(t, detailsFixture, "list", "-H", "--media-errors")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if rc != 0 || len(lines) != 2 || !strings.HasSuffix(lines[0], "HEALTH  MEDIA_ERRORS") || !strings.HasSuffix(lines[1], "  ok      2") {
		t.Errorf("list -H --media-errors: exit %d:\n%s", rc, out)
	}
}

// Without a mailbox (a captured tree, or no root) the memdev goes without
// health, with a warning, as cxl list leaves the key out.
func TestListHealthWithoutMailbox(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "cxlv-bare", "list", "-j", "-H")
	if rc != 0 || strings.Contains(out, `"health"`) ||
		!strings.Contains(errOut, "warning: mem0: no mailbox under --sysfs-root") {
		t.Errorf("list -j -H on a fixture: exit %d, %s, %q", rc, out, errOut)
	}
}

// -u prints JSON without -j, as cxl list -u does.
func TestListHumanWithoutJSON(t *testing.T) {
	out, _, rc := cxlvctl(t, "qemu-bare", "list", "-u")
	if rc != 0 || !strings.Contains(out, `"pmem_size": "512.00 MiB (536.87 MB)"`) {
		t.Errorf("list -u: exit %d, %s", rc, out)
	}
}

// Every fixture's default list fits 80 columns.
func TestListFits80Columns(t *testing.T) {
	entries, err := os.ReadDir(fixtureDir(""))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		out, _, _ := cxlvctl(t, e.Name(), "list")
		for line := range strings.Lines(out) {
			if n := len([]rune(strings.TrimRight(line, "\n"))); n > 80 {
				t.Errorf("%s: list line of %d columns: %q", e.Name(), n, line)
			}
		}
	}
}

// --no-headers leaves the rows alone on stdout: what info and ranges say
// around their tables goes to stderr.
func TestNoHeadersIsRowsOnly(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		args    []string
		row     string // every stdout line matches
		prose   string // on stderr
	}{
		{"cxlv-ram-movable", []string{"info", "--no-headers"}, `^[0-9]+ +(cpu|memory)`, "memory: "},
		{"cxlv-ram-movable", []string{"ranges", "--no-headers"}, `^0x[0-9a-f]+ +0x`, ""},
		{"qemu-bare", []string{"ranges", "--no-headers"}, `^$`, "no reserved or borrowed range"},
	} {
		out, errOut, rc := cxlvctl(t, tc.fixture, tc.args...)
		if rc != 0 || !strings.Contains(errOut, tc.prose) {
			t.Errorf("%s %q: exit %d, stderr %q; want %q there", tc.fixture, tc.args, rc, errOut, tc.prose)
		}
		for line := range strings.Lines(out) {
			if !regexp.MustCompile(tc.row).MatchString(line) {
				t.Errorf("%s %q: stdout line %q is not a row", tc.fixture, tc.args, line)
			}
		}
	}
	// info's sizes are list's: 768M, not 768.0M.
	if out, _, _ := cxlvctl(t, "cxlv-ram-movable", "info"); !strings.Contains(out, " 768M ") {
		t.Errorf("info: %s; want node 1's 768M", out)
	}
}

// cxlListFirmware is mem0's "firmware" as cxl list -F (ndctl 81) printed
// it on 7.3 in cxlv-mailbox-abuse, after cxl update-firmware staged slot 1.
const cxlListFirmware = `{"num_slots":2,"active_slot":2,"staged_slot":1,"online_activate_capable":true,
	"slot_1_version":"cxlv-fw-parts-01","slot_2_version":"cxlv-raw-fw-0002","fw_update_in_progress":false}`

// fwInfoPayload encodes cxl list's firmware object back into the Get FW
// Info payload (CXL r3.0 8.2.9.3.1).
func fwInfoPayload(t *testing.T, fw map[string]any) []byte {
	t.Helper()
	num := func(k string) byte {
		n, _ := fw[k].(json.Number).Int64()
		return byte(n)
	}
	b := make([]byte, 0x50)
	b[0], b[1] = num("num_slots"), num("active_slot")|num("staged_slot")<<3
	if fw["online_activate_capable"] == true {
		b[2] = 1
	}
	for i := range 4 {
		rev, _ := fw["slot_"+strconv.Itoa(i+1)+"_version"].(string)
		copy(b[0x10+16*i:], rev)
	}
	return b
}

// list -F gives the firmware object cxl list -F printed for the same slots:
// the mailbox's Get FW Info, no upload running (the fixture's kernel has
// no loader for a device without Get FW Info).
func TestListFirmwareMatchesCxlList(t *testing.T) {
	var theirs map[string]any
	if err := decodeNumbers([]byte(cxlListFirmware), &theirs); err != nil {
		t.Fatal(err)
	}
	_, mb := vvvMailbox(t)
	mb.fwInfo = fwInfoPayload(t, theirs)
	useMailbox(t, mb)
	out, errOut, rc := cxlvctl(t, detailsFixture, "list", "-j", "-F")
	if rc != 0 || errOut != "" {
		t.Fatalf("list -j -F: exit %d: %s", rc, errOut)
	}
	mine := ourObjects(t, []byte(out))["mem0"]
	if !reflect.DeepEqual(mine["firmware"], theirs) {
		t.Errorf("list -j -F firmware: %v, cxl list -F: %v", mine["firmware"], theirs)
	}
}
