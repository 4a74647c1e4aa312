package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/cxlv/cxlv/cxlverr"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:   "info",
		Usage:  "show host memory and NUMA nodes, with the CXL memdevs on each node",
		Flags:  []cli.Flag{jsonFlag(), noHeadersFlag()},
		Action: runInfo,
	}
}

// infoHelper is the program that prints info (package hostinfo): the only
// one that links ghw, so that no other command pays for its inits.
const infoHelper = "cxlvctl-info"

// runInfo hands the parsed command line to the helper, which replaces
// cxlvctl: its output and exit code are info's.
func runInfo(c *cli.Context) error {
	args := []string{infoHelper, "--sysfs-root", c.String("sysfs-root"), "--proc-root", c.String("proc-root"),
		"--json=" + strconv.FormatBool(c.Bool("json")), "--no-headers=" + strconv.FormatBool(c.Bool("no-headers"))}
	return execInfo(c, args)
}

// execInfo replaces cxlvctl with the helper beside it; the tests run the
// helper's code in the process instead.
var execInfo = func(_ *cli.Context, args []string) error {
	path, err := infoHelperPath()
	if err != nil {
		return err
	}
	return unix.Exec(path, args, os.Environ())
}

// infoHelperPath is the helper in cxlvctl's own directory, where every
// install puts the two.
func infoHelperPath() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	path := filepath.Join(filepath.Dir(self), infoHelper)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", cxlverr.Errorf(cxlverr.ErrNotFound, "info needs %s beside cxlvctl, and %s is missing: install both (make install, or the cxlvctl package)", infoHelper, path)
	} else if err != nil {
		return "", err
	}
	return path, nil
}
