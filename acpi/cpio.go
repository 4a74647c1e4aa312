package acpi

import (
	"bytes"
	"fmt"
)

// File is one table in the early cpio.
type File struct {
	Name string // under kernel/firmware/acpi/
	Data []byte
}

// UpgradeDir is where the kernel looks for tables in the initramfs
// (drivers/acpi/tables.c, acpi_table_upgrade).
const UpgradeDir = "kernel/firmware/acpi"

// EarlyCpio returns an uncompressed "newc" cpio archive holding files under
// UpgradeDir: the kernel reads tables only from an uncompressed cpio at the
// start of the initramfs, before it unpacks the rest.
func EarlyCpio(files []File) []byte {
	var b bytes.Buffer
	ino := 1
	entry := func(name string, mode uint32, data []byte) {
		// magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
		// devminor, rdevmajor, rdevminor, namesize, check
		fmt.Fprintf(&b, "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
			ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name)+1, 0)
		ino++
		b.WriteString(name)
		b.WriteByte(0)
		pad(&b)
		b.Write(data)
		pad(&b)
	}
	for _, dir := range []string{"kernel", "kernel/firmware", UpgradeDir} {
		entry(dir, 0o040755, nil)
	}
	for _, f := range files {
		entry(UpgradeDir+"/"+f.Name, 0o100644, f.Data)
	}
	entry("TRAILER!!!", 0, nil)
	return b.Bytes()
}

// pad aligns the archive to 4 bytes, as newc wants after names and data.
func pad(b *bytes.Buffer) {
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
}
