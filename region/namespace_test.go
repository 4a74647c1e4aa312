package region

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/writer/writertest"
)

// TestCreateNamespaceNoSpace: the region is full; nothing is written.
func TestCreateNamespaceNoSpace(t *testing.T) {
	fs := fixture(t, "qemu-region-fsdax")
	rec := &writertest.Recorder{}
	_, err := manager(fs, rec, &bytes.Buffer{}).CreateNamespace(t.Context(), NamespaceSpec{Region: "region0", Mode: ModeDevdax})
	if err == nil || !strings.Contains(err.Error(), "no free space") || len(rec.Ops()) != 0 {
		t.Errorf("namespace create on a full region: %v, wrote %v", err, rec.Ops())
	}
}

// TestCreateNamespaceRefusals: each is refused before any write.
func TestCreateNamespaceRefusals(t *testing.T) {
	fs := fixture(t, "qemu-region-devdax")
	for _, c := range []struct {
		spec    NamespaceSpec
		invalid bool
		msg     string
	}{
		{NamespaceSpec{Region: "region0"}, true, "needs --mode"},
		{NamespaceSpec{Region: "region0", Mode: "sector"}, true, "unknown namespace mode"},
		{NamespaceSpec{Region: "region0", Mode: ModeRaw, Size: 3 << 20}, true, "not a multiple of nd region0's alignment"},
		{NamespaceSpec{Region: "region5", Mode: ModeRaw}, false, "nd region region5 not found"},
	} {
		rec := &writertest.Recorder{}
		_, err := manager(fs, rec, &bytes.Buffer{}).CreateNamespace(t.Context(), c.spec)
		if err == nil || !strings.Contains(err.Error(), c.msg) || errors.Is(err, cxlverr.ErrInvalid) != c.invalid || len(rec.Ops()) != 0 {
			t.Errorf("%+v: %v (wrote %v), want %q", c.spec, err, rec.Ops(), c.msg)
		}
	}
}
