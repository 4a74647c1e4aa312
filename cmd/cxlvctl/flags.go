package main

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/region"
	"github.com/cxlv/cxlv/units"
)

// flagValue is the value of a cli.GenericFlag, parsed once: Set parses and
// checks the text as urfave/cli reads the line, before any command runs
// (a refusal is a usage error naming the flag, see onUsageError), and the
// command reads the value Set made, so the value checked is the one used.
// The same value knows what the flag completes to.
type flagValue[T any] struct {
	text  string
	value T
	parse func(string) (T, error) // nil: the text as it is
	words func(sysRoot string) []string
}

func (f *flagValue[T]) Set(text string) error {
	if f.parse != nil {
		v, err := f.parse(text)
		if err != nil {
			return err
		}
		f.value = v
	}
	f.text = text
	return nil
}

func (f *flagValue[T]) String() string { return f.text }

// candidates are the words the flag's value completes to.
func (f *flagValue[T]) candidates(sysRoot string) []string {
	if f.words == nil {
		return nil
	}
	return f.words(sysRoot)
}

// completer is a flag value that knows its completions.
type completer interface {
	candidates(sysRoot string) []string
}

// parsed is the value of the flagValue flag name and whether the line gave
// it (a default counts as not given).
func parsed[T any](c *cli.Context, name string) (T, bool) {
	f, ok := c.Generic(name).(*flagValue[T])
	if !ok {
		panic(fmt.Sprintf("--%s is no flag of %T", name, f)) // a bug, not a bad line
	}
	return f.value, c.IsSet(name)
}

// sizeValue is a size or address (units.ParseSize); a non-empty zero is
// why 0 is refused.
func sizeValue(zero string) *flagValue[uint64] {
	return &flagValue[uint64]{parse: func(s string) (uint64, error) {
		v, err := units.ParseSize(s)
		if err == nil && v == 0 && zero != "" {
			return 0, errors.New(zero)
		}
		return v, err
	}}
}

// serialValue is a device serial as the module reads serial=: decimal or
// 0x hex, no suffix, no sign, no '_' (so 010 is ten), and not 0: the nvdimm
// labels of a memdev name its serial, and 0 would not bring them back.
func serialValue() *flagValue[uint64] {
	return &flagValue[uint64]{parse: func(s string) (uint64, error) {
		base, digits := 10, s
		if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
			base, digits = 16, s[2:]
		}
		v, err := strconv.ParseUint(digits, base, 64)
		switch {
		case err != nil:
			return 0, errors.New("a serial is a number (decimal or 0x hex), not a size: digits only, e.g. --serial 1000 or --serial 0x3e8")
		case v == 0:
			return 0, errors.New("serial 0 is refused: namespace labels need a non-zero serial to be found again; leave --serial out to derive one from --memstart")
		}
		return v, nil
	}}
}

// qosClassValue is a QoS class: a decimal number; Validate checks its
// range.
func qosClassValue(s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, errors.New("a QoS class is a decimal number from 0 to 65535, e.g. --qos-class 42")
	}
	return v, nil
}

// figureValue is a CDAT latency or bandwidth: it must parse and fit its
// entry.
func figureValue(parse func(string) (uint32, error)) *flagValue[uint32] {
	return &flagValue[uint32]{parse: parse}
}

// countFlag is a flag of a count from 1 up, which completes to words; the
// command checks which counts go together.
func countFlag(name, usage string, words ...string) *cli.GenericFlag {
	parse := func(s string) (uint64, error) {
		v, err := strconv.ParseUint(s, 10, 8)
		if err != nil || v == 0 {
			return 0, fmt.Errorf("a count from 1 up, e.g. --%s 2", name)
		}
		return v, nil
	}
	return &cli.GenericFlag{Name: name, Usage: usage, Value: choiceValue(words, parse)}
}

// timeoutFlag is --timeout: a positive duration with a unit, by default
// region.DefaultTimeout.
func timeoutFlag(usage string) *cli.GenericFlag {
	const name = "timeout"
	v := &flagValue[time.Duration]{parse: func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		switch {
		case err == nil && d <= 0:
			return 0, errors.New("must be positive, e.g. 30s")
		case err == nil:
			return d, nil
		}
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return 0, fmt.Errorf("a duration needs a unit: --%s %ss", name, s)
		}
		return 0, errors.New("not a duration: use e.g. 30s, 2m or 1m30s")
	}}
	if err := v.Set(region.DefaultTimeout.String()); err != nil {
		panic(err)
	}
	return &cli.GenericFlag{Name: name, Usage: usage, Value: v}
}

// timeout is the --timeout of c's command.
func timeout(c *cli.Context) time.Duration {
	d, _ := parsed[time.Duration](c, "timeout")
	return d
}

// choiceValue is one of fixed words: parse (nil: any text, checked by the
// command) reads it, and the words are its completions.
func choiceValue[T any](words []string, parse func(string) (T, error)) *flagValue[T] {
	return &flagValue[T]{parse: parse, words: func(string) []string { return words }}
}

// nameValue is the name of a live object of a kind (sysfs.NameKinds),
// which the command resolves; it completes to the names there are.
func nameValue(kind string) *flagValue[string] {
	return &flagValue[string]{words: func(sysRoot string) []string { return liveNames(sysRoot, kind) }}
}

// withDefault gives f the value def, shown in help as a string flag shows
// its default.
func withDefault(f *cli.GenericFlag, def string) *cli.GenericFlag {
	if err := f.Value.Set(def); err != nil {
		panic(err) // a default that does not parse is a bug
	}
	f.DefaultText = strconv.Quote(def)
	return f
}
