// Package acpi builds the ACPI tables that make a reserved range of RAM a
// CPU-less NUMA node of its own, the way firmware describes CXL memory.
// On one-node firmware (no SRAT): an SRAT that puts every CPU and all other
// RAM in proximity domain 0 and each range, hot-pluggable, in a domain of
// its own, and an HMAT that names domain 0 their initiator, so that the
// kernel keeps the node's access coordinates the CXL region computes. When
// the firmware has an SRAT, which stays: a CEDT with one CXL Fixed Memory
// Window Structure (CFMWS) per range, which Linux gives a node of its own
// when the SRAT does not cover it (drivers/acpi/numa/srat.c,
// acpi_parse_cfmws). The tables reach the
// kernel as an ACPI table upgrade: an uncompressed cpio at the front of the
// initramfs, with the tables under kernel/firmware/acpi/
// (Documentation/admin-guide/acpi/initrd_table_override.rst).
package acpi

import (
	"encoding/binary"
	"fmt"
)

// headerSize is the size of the ACPI System Description Table Header
// (ACPI 6.5, 5.2.6).
const headerSize = 36

// Identification of the tables this package writes: OEM ID (6 bytes), OEM
// Table ID (8), Creator ID (4).
const (
	oemID      = "CXLV  "
	oemTableID = "CXLVNODE"
	creatorID  = "CXLV"
)

var le = binary.LittleEndian

// table returns a whole table: the header (signature, length, revision,
// checksum, OEM and creator fields) followed by body, with a checksum that
// makes all bytes sum to zero.
func table(signature string, revision uint8, body []byte) []byte {
	t := make([]byte, headerSize, headerSize+len(body))
	copy(t[0:4], signature)
	le.PutUint32(t[4:8], uint32(headerSize+len(body)))
	t[8] = revision
	copy(t[10:16], oemID)
	copy(t[16:24], oemTableID)
	le.PutUint32(t[24:28], 1) // OEM Revision
	copy(t[28:32], creatorID)
	le.PutUint32(t[32:36], 1) // Creator Revision
	t = append(t, body...)
	var sum byte
	for _, b := range t {
		sum += b
	}
	t[9] = -sum
	return t
}

// checkTable returns the structures after a table's header and fixedSize
// bytes of fixed fields, after checking its signature, length and checksum.
func checkTable(t []byte, signature string, fixedSize int) ([]byte, error) {
	if len(t) < headerSize+fixedSize || string(t[0:4]) != signature {
		return nil, fmt.Errorf("not an ACPI %s table (%d bytes)", signature, len(t))
	}
	if n := le.Uint32(t[4:8]); int(n) != len(t) {
		return nil, fmt.Errorf("ACPI %s table: header length %d, file %d bytes", signature, n, len(t))
	}
	var sum byte
	for _, b := range t {
		sum += b
	}
	if sum != 0 {
		return nil, fmt.Errorf("ACPI %s table: bad checksum", signature)
	}
	return t[headerSize+fixedSize:], nil
}

// subtables calls fn with the type and bytes of each structure of a table
// whose structures start with a one-byte type and a length of lenSize bytes
// at offset lenOffset (MADT and SRAT: 1 at 1; CEDT: 2 at 2).
func subtables(signature string, b []byte, lenOffset, lenSize int, fn func(typ byte, s []byte)) error {
	for len(b) > 0 {
		if len(b) < lenOffset+lenSize {
			return fmt.Errorf("ACPI %s table: truncated structure", signature)
		}
		n := int(b[lenOffset])
		if lenSize == 2 {
			n = int(le.Uint16(b[lenOffset:]))
		}
		if n < lenOffset+lenSize || n > len(b) {
			return fmt.Errorf("ACPI %s table: structure length %d out of bounds", signature, n)
		}
		fn(b[0], b[:n])
		b = b[n:]
	}
	return nil
}
