// Command cxlvctl-info is `cxlvctl info`, which execs it once it has
// parsed its command line: the one program that links ghw (see package
// hostinfo), so that no other cxlvctl command pays for its package inits.
// It is installed beside cxlvctl and not meant to be run by hand.
package main

import (
	"os"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/cmd/cxlvctl/hostinfo"
	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
)

func main() {
	if err := hostinfo.Main(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		view.Error(os.Stderr, err)
		os.Exit(exitcode.Of(err))
	}
}
