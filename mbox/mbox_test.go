package mbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// struct cxl_send_command is 48 bytes with its payload pointers at 24 and
// 40 (include/uapi/linux/cxl_mem.h), so CXL_MEM_SEND_COMMAND is 0xc030ce02.
func TestSendCommandLayout(t *testing.T) {
	var c sendCommand
	if unsafe.Sizeof(c) != 48 || unsafe.Offsetof(c.InPayload) != 24 || unsafe.Offsetof(c.OutSize) != 32 ||
		unsafe.Offsetof(c.OutPayload) != 40 || sendCommandIoctl != 0xc030ce02 {
		t.Errorf("struct of %d bytes, in.payload at %d, out.size at %d, out.payload at %d, ioctl %#x",
			unsafe.Sizeof(c), unsafe.Offsetof(c.InPayload), unsafe.Offsetof(c.OutSize), unsafe.Offsetof(c.OutPayload), sendCommandIoctl)
	}
}

func TestShortPayloads(t *testing.T) {
	if _, err := ParseHealth(make([]byte, 17)); err == nil {
		t.Error("ParseHealth took 17 bytes")
	}
	if _, err := ParseIdentify(make([]byte, 0x2f)); err == nil {
		t.Error("ParseIdentify took 0x2f bytes")
	}
	if err := ParsePartitionInfo(&Partition{}, make([]byte, 31)); err == nil {
		t.Error("ParsePartitionInfo took 31 bytes")
	}
	if _, err := ParseFirmware(make([]byte, 0x4f)); err == nil {
		t.Error("ParseFirmware took 0x4f bytes")
	}
}

// A memdev without its character device is an error naming it; a file that
// is no CXL device refuses the ioctl (ENOTTY): not supported.
func TestSendErrors(t *testing.T) {
	if _, err := (Device{Memdev: "mem9", Path: filepath.Join(t.TempDir(), "mem9")}).Health(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Health of a missing device: %v", err)
	}
	f := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Device{Memdev: "mem0", Path: f}).Health(); err == nil {
		t.Error("Health through a plain file succeeded")
	}
}
