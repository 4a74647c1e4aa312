package acpi

// HMAT fields (ACPI 6.5, 5.2.28).
const (
	hmatRevision = 2
	// hmatProximity: Memory Proximity Domain Attributes (5.2.28.4), 40 bytes.
	hmatProximity      = 0
	hmatProximitySize  = 40
	hmatInitiatorValid = 1 << 0
	// hmatFixedSize: 4 reserved bytes after the header.
	hmatFixedSize = 4
)

// HMAT returns an HMAT that names proximity domain 0 (the CPUs) as the
// initiator of domains 1..windows, and no figures: the kernel then keeps
// a performance record for each window's node (drivers/acpi/numa/hmat.c),
// whose access coordinates the CXL region fills in from the device's CDAT
// (6.12: hmat_update_target_coordinates; 7.3 only updates coordinates that
// exist, node_update_perf_attrs). Without any HMAT 7.3 leaves the node
// without access coordinates.
func HMAT(windows int) []byte {
	body := make([]byte, hmatFixedSize)
	for i := 0; i < windows; i++ {
		s := make([]byte, hmatProximitySize)
		le.PutUint16(s[0:2], hmatProximity)
		le.PutUint32(s[4:8], hmatProximitySize)
		le.PutUint16(s[8:10], hmatInitiatorValid)
		le.PutUint32(s[12:16], 0)           // initiator proximity domain
		le.PutUint32(s[16:20], uint32(i+1)) // memory proximity domain
		body = append(body, s...)
	}
	return table("HMAT", hmatRevision, body)
}
