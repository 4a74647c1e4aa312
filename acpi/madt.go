package acpi

// CPU is one processor the MADT lists as enabled or online-capable.
type CPU struct {
	APICID uint32
	// X2APIC is true for a Processor Local x2APIC structure.
	X2APIC bool
}

// MADT structure types and flags (ACPI 6.5, 5.2.12).
const (
	madtLocalAPIC     = 0 // 5.2.12.2
	madtLocalX2APIC   = 9 // 5.2.12.12
	madtEnabled       = 1 << 0
	madtOnlineCapable = 1 << 1
	// madtFixedSize: Local Interrupt Controller Address and Flags.
	madtFixedSize = 8
)

// ParseMADT returns the processors of a MADT (/sys/firmware/acpi/tables/APIC)
// that are enabled or can be brought online: the CPUs an SRAT must place.
func ParseMADT(t []byte) ([]CPU, error) {
	b, err := checkTable(t, "APIC", madtFixedSize)
	if err != nil {
		return nil, err
	}
	var cpus []CPU
	err = subtables("APIC", b, 1, 1, func(typ byte, s []byte) {
		switch {
		case typ == madtLocalAPIC && len(s) >= 8 && le.Uint32(s[4:8])&(madtEnabled|madtOnlineCapable) != 0:
			cpus = append(cpus, CPU{APICID: uint32(s[3])})
		case typ == madtLocalX2APIC && len(s) >= 16 && le.Uint32(s[8:12])&(madtEnabled|madtOnlineCapable) != 0:
			cpus = append(cpus, CPU{APICID: le.Uint32(s[4:8]), X2APIC: true})
		}
	})
	return cpus, err
}
