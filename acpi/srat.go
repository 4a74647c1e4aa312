package acpi

import "github.com/cxlv/cxlv/hostmem"

// SRAT structure types, sizes and flags (ACPI 6.5, 5.2.16).
const (
	sratRevision       = 3
	sratCPUAffinity    = 0 // 5.2.16.1, 16 bytes
	sratMemoryAffinity = 1 // 5.2.16.2, 40 bytes
	sratX2APICAffinity = 2 // 5.2.16.3, 24 bytes
	sratEnabled        = 1 << 0
	sratHotPluggable   = 1 << 1
	// sratFixedSize: Reserved (must be 1, for compatibility) and 8 reserved bytes.
	sratFixedSize = 12
)

// SRAT returns an SRAT that puts every CPU and every RAM range in proximity
// domain 0, what one-node firmware implies without saying it, and window i
// alone in domain i+1, hot-pluggable, as firmware describes CXL memory it
// does not map as RAM.
func SRAT(cpus []CPU, ram, windows []hostmem.Range) []byte {
	body := make([]byte, sratFixedSize)
	le.PutUint32(body[0:4], 1)
	for _, c := range cpus {
		if c.X2APIC || c.APICID > 0xff {
			s := make([]byte, 24)
			s[0], s[1] = sratX2APICAffinity, 24
			le.PutUint32(s[8:12], c.APICID)
			le.PutUint32(s[12:16], sratEnabled)
			body = append(body, s...)
			continue
		}
		s := make([]byte, 16)
		s[0], s[1], s[3] = sratCPUAffinity, 16, byte(c.APICID)
		le.PutUint32(s[4:8], sratEnabled)
		body = append(body, s...)
	}
	memory := func(r hostmem.Range, pxm, flags uint32) {
		s := make([]byte, 40)
		s[0], s[1] = sratMemoryAffinity, 40
		le.PutUint32(s[2:6], pxm)
		le.PutUint64(s[8:16], r.Start)
		le.PutUint64(s[16:24], r.Size)
		le.PutUint32(s[28:32], flags)
		body = append(body, s...)
	}
	for _, r := range ram {
		memory(r, 0, sratEnabled)
	}
	for i, w := range windows {
		memory(w, uint32(i+1), sratEnabled|sratHotPluggable)
	}
	return table("SRAT", sratRevision, body)
}

// MemoryAffinity is one enabled Memory Affinity structure of an SRAT.
type MemoryAffinity struct {
	hostmem.Range
	ProximityDomain uint32
}

// ParseSRATMemory returns the enabled memory ranges of an SRAT
// (/sys/firmware/acpi/tables/SRAT).
func ParseSRATMemory(t []byte) ([]MemoryAffinity, error) {
	b, err := checkTable(t, "SRAT", sratFixedSize)
	if err != nil {
		return nil, err
	}
	var mem []MemoryAffinity
	err = subtables("SRAT", b, 1, 1, func(typ byte, s []byte) {
		if typ == sratMemoryAffinity && len(s) >= 40 && le.Uint32(s[28:32])&sratEnabled != 0 {
			mem = append(mem, MemoryAffinity{
				Range:           hostmem.Range{Start: le.Uint64(s[8:16]), Size: le.Uint64(s[16:24])},
				ProximityDomain: le.Uint32(s[2:6]),
			})
		}
	})
	return mem, err
}
