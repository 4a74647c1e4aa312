package acpi

import "github.com/cxlv/cxlv/hostmem"

// CEDT and CFMWS fields (CXL r3.0, 9.17.1 and 9.17.1.3).
const (
	cedtRevision = 1
	cedtCFMWS    = 1
	// cfmwsSize: a CFMWS with one interleave target.
	cfmwsSize = 40
	// Window Restrictions: host-only coherent (type 3 devices), volatile
	// and persistent memory: what cxl_virt's own root decoders allow.
	cfmwsHostOnlyCoherent = 1 << 1
	cfmwsVolatile         = 1 << 2
	cfmwsPersistent       = 1 << 3
	// WindowAlign is the granularity of a CFMWS base and size.
	WindowAlign = 256 << 20
)

// CEDT returns a CEDT with one 1-way CFMWS per window. Its single interleave
// target names host bridge UID 0, which no ACPI0016 device has: without an
// ACPI0017 device cxl_acpi never binds, so only the kernel's NUMA setup reads
// the windows.
func CEDT(windows []hostmem.Range) []byte {
	var body []byte
	for _, w := range windows {
		s := make([]byte, cfmwsSize)
		s[0] = cedtCFMWS
		le.PutUint16(s[2:4], cfmwsSize)
		le.PutUint64(s[8:16], w.Start)
		le.PutUint64(s[16:24], w.Size)
		// ENIW 0 (1 way), arithmetic 0 (modulo), HBIG 0 (256 B), QTG 0.
		le.PutUint16(s[32:34], cfmwsHostOnlyCoherent|cfmwsVolatile|cfmwsPersistent)
		body = append(body, s...)
	}
	return table("CEDT", cedtRevision, body)
}

// ParseCEDTWindows returns the CFMWS windows of a CEDT.
func ParseCEDTWindows(t []byte) ([]hostmem.Range, error) {
	b, err := checkTable(t, "CEDT", 0)
	if err != nil {
		return nil, err
	}
	var windows []hostmem.Range
	err = subtables("CEDT", b, 2, 2, func(typ byte, s []byte) {
		if typ == cedtCFMWS && len(s) >= 24 {
			windows = append(windows, hostmem.Range{Start: le.Uint64(s[8:16]), Size: le.Uint64(s[16:24])})
		}
	})
	return windows, err
}
