// Package mbox reads a CXL memory device's state through the kernel's
// mailbox ioctl (CXL_MEM_SEND_COMMAND on /dev/cxl/memN, the path `cxl list
// -H`, `cxl list -I` and `cxl list -F` take): its health, its partitions and
// its firmware slots. Only the
// read-only commands the kernel lets user space send are used; nothing here
// changes the device.
package mbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cxlv/cxlv/cxlverr"
)

// The command ids of include/uapi/linux/cxl_mem.h (its CXL_CMDS list): the
// kernel's numbers for the commands, not their mailbox opcodes.
const (
	cmdIdentify         = 1
	cmdGetFWInfo        = 4
	cmdGetPartitionInfo = 5
	cmdGetHealthInfo    = 7
)

// commandNames name the commands in messages.
var commandNames = map[uint32]string{cmdIdentify: "Identify", cmdGetFWInfo: "Get FW Info",
	cmdGetPartitionInfo: "Get Partition Info", cmdGetHealthInfo: "Get Health Info"}

// The output sizes the kernel's command table gives these commands.
const (
	identifySize      = 0x43
	fwInfoSize        = 0x50
	partitionInfoSize = 0x20
	healthInfoSize    = 0x12
)

// sendCommand is struct cxl_send_command.
type sendCommand struct {
	ID         uint32
	Flags      uint32
	Raw        uint32 // raw.opcode and raw.rsvd: unused for these ids
	Retval     uint32
	InSize     uint32
	InRsvd     uint32
	InPayload  uint64
	OutSize    uint32
	OutRsvd    uint32
	OutPayload uint64
}

// sendCommandIoctl is CXL_MEM_SEND_COMMAND: _IOWR(0xCE, 2, struct
// cxl_send_command).
const sendCommandIoctl = 3<<30 | uint(unsafe.Sizeof(sendCommand{}))<<16 | 0xCE<<8 | 2

// DevDir is where the memdevs' character devices are.
const DevDir = "/dev/cxl"

// Device is one memdev's mailbox, through its character device.
type Device struct {
	Memdev string
	// Path is the character device; DevDir/Memdev unless set.
	Path string
}

func (d Device) path() string {
	if d.Path != "" {
		return d.Path
	}
	return filepath.Join(DevDir, d.Memdev)
}

// send runs command id and returns its output payload.
func (d Device) send(id uint32, size int) ([]byte, error) {
	f, err := os.OpenFile(d.path(), os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("%s mailbox: %w", d.Memdev, err)
	}
	defer f.Close()
	out := make([]byte, size)
	cmd := sendCommand{ID: id, OutSize: uint32(size), OutPayload: uint64(uintptr(unsafe.Pointer(&out[0])))}
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), uintptr(sendCommandIoctl), uintptr(unsafe.Pointer(&cmd)))
	runtime.KeepAlive(out)
	switch {
	case errno == unix.ENOTTY || errno == unix.EOPNOTSUPP:
		// The kernel passes only the commands the device's CEL lists.
		return nil, cxlverr.Errorf(cxlverr.ErrNotSupported, "%s does not offer %s (the kernel refused it: %v)", d.Memdev, commandNames[id], errno)
	case errno != 0:
		return nil, fmt.Errorf("%s mailbox: command %d: %w", d.Memdev, id, errno)
	case cmd.Retval != 0:
		return nil, fmt.Errorf("%s mailbox: command %d: device returned %#x", d.Memdev, id, cmd.Retval)
	}
	return out[:min(int(cmd.OutSize), size)], nil
}

// Health is the Get Health Info output payload (CXL r3.0 8.2.9.8.3.1).
type Health struct {
	Status         uint8 // bit 0 maintenance needed, 1 performance degraded, 2 hardware replacement needed
	MediaStatus    uint8 // 0 normal, 1 not ready, 2 persistence lost, ... 9 data loss imminent
	AdditionalStat uint8 // bits 1:0 life used, 3:2 temperature, 4 corrected volatile, 5 corrected persistent
	LifeUsed       uint8 // percent; 0xff not implemented
	Temperature    int16 // Celsius; 0xffff not implemented
	DirtyShutdowns uint32
	VolatileErrors uint32
	PmemErrors     uint32
}

// ParseHealth decodes a Get Health Info payload.
func ParseHealth(b []byte) (Health, error) {
	if len(b) < healthInfoSize {
		return Health{}, fmt.Errorf("health info: %d bytes, want %d", len(b), healthInfoSize)
	}
	le := binary.LittleEndian
	return Health{Status: b[0], MediaStatus: b[1], AdditionalStat: b[2], LifeUsed: b[3],
		Temperature: int16(le.Uint16(b[4:])), DirtyShutdowns: le.Uint32(b[6:]),
		VolatileErrors: le.Uint32(b[10:]), PmemErrors: le.Uint32(b[14:])}, nil
}

// Health asks the device for its health.
func (d Device) Health() (Health, error) {
	b, err := d.send(cmdGetHealthInfo, healthInfoSize)
	if err != nil {
		return Health{}, err
	}
	return ParseHealth(b)
}

// capacityUnit is the unit of the capacities of Identify and Get Partition
// Info.
const capacityUnit = 256 << 20

// Partition is what Identify says of the capacity, and, on a device that
// can repartition (Alignment > 0), what Get Partition Info says.
type Partition struct {
	Total, VolatileOnly, PersistentOnly, Alignment uint64
	// Active and Next are nil when Alignment is 0.
	ActiveVolatile, ActivePersistent, NextVolatile, NextPersistent *uint64
}

// ParseIdentify decodes the capacities of an Identify payload.
func ParseIdentify(b []byte) (Partition, error) {
	if len(b) < 0x30 {
		return Partition{}, fmt.Errorf("identify: %d bytes, want %d", len(b), identifySize)
	}
	le := binary.LittleEndian
	return Partition{Total: le.Uint64(b[0x10:]) * capacityUnit, VolatileOnly: le.Uint64(b[0x18:]) * capacityUnit,
		PersistentOnly: le.Uint64(b[0x20:]) * capacityUnit, Alignment: le.Uint64(b[0x28:]) * capacityUnit}, nil
}

// ParsePartitionInfo adds a Get Partition Info payload to p.
func ParsePartitionInfo(p *Partition, b []byte) error {
	if len(b) < partitionInfoSize {
		return fmt.Errorf("partition info: %d bytes, want %d", len(b), partitionInfoSize)
	}
	le := binary.LittleEndian
	v := func(off int) *uint64 { x := le.Uint64(b[off:]) * capacityUnit; return &x }
	p.ActiveVolatile, p.ActivePersistent, p.NextVolatile, p.NextPersistent = v(0), v(8), v(16), v(24)
	return nil
}

// Partition asks the device for its capacities and partitions.
func (d Device) Partition() (Partition, error) {
	b, err := d.send(cmdIdentify, identifySize)
	if err != nil {
		return Partition{}, err
	}
	p, err := ParseIdentify(b)
	if err != nil || p.Alignment == 0 {
		return p, err
	}
	if b, err = d.send(cmdGetPartitionInfo, partitionInfoSize); err != nil {
		return p, err
	}
	return p, ParsePartitionInfo(&p, b)
}

// Firmware is the Get FW Info output payload (CXL r3.0 8.2.9.3.1).
type Firmware struct {
	Slots uint8
	// Active is the running slot, Staged the one activated at the next
	// reset (0: none); slots count from 1.
	Active, Staged uint8
	OnlineActivate bool
	// Revisions are the slots' revisions, slot 1 first; "" is an empty slot.
	Revisions [4]string
}

// ParseFirmware decodes a Get FW Info payload.
func ParseFirmware(b []byte) (Firmware, error) {
	if len(b) < fwInfoSize {
		return Firmware{}, fmt.Errorf("firmware info: %d bytes, want %d", len(b), fwInfoSize)
	}
	f := Firmware{Slots: b[0], Active: b[1] & 7, Staged: b[1] >> 3 & 7, OnlineActivate: b[2]&1 != 0}
	for i := range f.Revisions {
		rev := b[0x10+16*i : 0x20+16*i]
		if n := bytes.IndexByte(rev, 0); n >= 0 {
			rev = rev[:n]
		}
		f.Revisions[i] = string(rev)
	}
	return f, nil
}

// Firmware asks the device for its firmware slots.
func (d Device) Firmware() (Firmware, error) {
	b, err := d.send(cmdGetFWInfo, fwInfoSize)
	if err != nil {
		return Firmware{}, err
	}
	return ParseFirmware(b)
}
