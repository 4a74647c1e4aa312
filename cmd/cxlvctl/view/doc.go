// Package view turns the sysfs read model into what cxlvctl prints: the
// JSON objects of `cxl list`, `ndctl list` and `daxctl list` (docs/json.md)
// and the rows of cxlvctl's tables. Commands read, call this package and
// write what it returns; it reads and writes nothing itself.
package view
