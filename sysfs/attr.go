package sysfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// ParseU64 parses a numeric sysfs attribute. The kernel prints sizes and
// addresses as "0x…" (%#llx) and counts in decimal; both are accepted, with
// surrounding white space.
func ParseU64(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if hex, ok := strings.CutPrefix(s, "0x"); ok {
		if hex == "" || strings.HasPrefix(hex, "+") {
			return 0, fmt.Errorf("invalid number %q", s)
		}
		return strconv.ParseUint(hex, 16, 64)
	}
	if s == "" || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("invalid number %q", s)
	}
	return strconv.ParseUint(s, 10, 64)
}

// ParseBool parses a 0/1 sysfs flag.
func ParseBool(s string) (bool, error) {
	switch strings.TrimSpace(s) {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf("invalid flag %q", strings.TrimSpace(s))
}

// attrs reads the attributes of one sysfs directory. An attribute that does
// not exist, or that only root may read (decoder start is 0400), reads as
// absent; any other failure is kept in err, so a reader can collect all the
// fields it wants and check once.
type attrs struct {
	dir string
	err error
}

func (a *attrs) fail(name string, err error) {
	if a.err == nil {
		a.err = fmt.Errorf("%s: %w", filepath.Join(a.dir, name), err)
	}
}

// raw returns the trimmed content of name and whether it could be read.
func (a *attrs) raw(name string) (string, bool) {
	b, err := readAttr(filepath.Join(a.dir, name))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			a.fail(name, err)
		}
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

func (a *attrs) has(name string) bool { return Exists(filepath.Join(a.dir, name)) }

func (a *attrs) str(name string) string {
	s, _ := a.raw(name)
	return s
}

// optional parses attribute name with parse; nil when it is absent or, for
// parse returning errAbsent, holds no value.
func optional[T any](a *attrs, name string, parse func(string) (T, error)) *T {
	s, ok := a.raw(name)
	if !ok {
		return nil
	}
	v, err := parse(s)
	if err != nil {
		if err != errAbsent {
			a.fail(name, err)
		}
		return nil
	}
	return &v
}

var errAbsent = errors.New("no value")

func (a *attrs) optU64(name string) *uint64 { return optional(a, name, ParseU64) }
func (a *attrs) optInt(name string) *int    { return optional(a, name, strconv.Atoi) }
func (a *attrs) optBool(name string) *bool  { return optional(a, name, ParseBool) }
func (a *attrs) optStr(name string) *string {
	return optional(a, name, func(s string) (string, error) { return s, nil })
}

// qosClassNone is the value of a qos_class attribute with no class
// (CXL_QOS_CLASS_INVALID), which libcxl treats like a missing one.
const qosClassNone = -1

// qosClass reads a qos_class attribute: nil when it is missing or holds
// no class.
func (a *attrs) qosClass(name string) *int {
	c := a.optInt(name)
	if c != nil && *c == qosClassNone {
		return nil
	}
	return c
}

func (a *attrs) u64(name string) uint64 {
	if v := a.optU64(name); v != nil {
		return *v
	}
	return 0
}

// optSelected reads a choice list such as a namespace's sector_size,
// "[512] 4096", as the value in brackets; a plain number reads as itself,
// a list with nothing selected ("512 4096", an idle seed) as absent.
func (a *attrs) optSelected(name string) *uint64 {
	return optional(a, name, func(s string) (uint64, error) {
		if i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']'); i >= 0 && j > i {
			s = s[i+1 : j]
		} else if strings.Contains(s, " ") {
			return 0, errAbsent
		}
		return ParseU64(s)
	})
}

func (a *attrs) flag(name string) bool {
	v := a.optBool(name)
	return v != nil && *v
}

// uevent returns one KEY=value of the directory's uevent file.
func (a *attrs) uevent(key string) string {
	s, _ := a.raw("uevent")
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return v
		}
	}
	return ""
}

// driver is the name of the bound driver, "" when unbound.
func (a *attrs) driver() string { return linkName(filepath.Join(a.dir, "driver")) }

// devNode is the /dev path of the device, from DEVNAME in its uevent.
func (a *attrs) devNode() string {
	if n := a.uevent("DEVNAME"); n != "" {
		return "/dev/" + n
	}
	return ""
}
