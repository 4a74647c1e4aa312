// Package view is all that cxlvctl prints: it turns the library's results
// and the sysfs read model into the JSON objects of `cxl list`, `ndctl
// list` and `daxctl list` and of cxlvctl's own commands (docs/json.md, whose
// keys are the tags here and nowhere else) and into the rows of its
// tables, and prints both. Commands read, call the library and hand what it
// returns to this package; it reads nothing and writes only to the
// io.Writer it is given.
package view
