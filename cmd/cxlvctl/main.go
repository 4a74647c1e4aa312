// Command cxlvctl controls virtual CXL memory devices (cxl_virt): create
// and remove them, list them linked to their regions and namespaces, find
// reserved memory for them, and complete their names in the shell.
//
// Commands stay thin: they parse flags, call the sysfs/virt/region
// packages and hand what they return to the view package, which prints.
// Exit codes, for scripts:
//
//	0  success
//	1  any other failure
//	2  invalid input (flags, sizes, names); nothing was written
//	3  permission denied: run as root
//	4  not supported: module not loaded, or the kernel lacks the feature
//	5  busy: the device or range is in use
//	6  not found: no such device, memdev, region, ...
//	7  timed out waiting for the kernel
//	130 interrupted (SIGINT, SIGTERM or SIGHUP); a region or namespace
//	    create rolls back what it had done
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/virt"
	"github.com/cxlv/cxlv/writer"
)

// exitCodes are the exit codes as --help and the man page list them.
var exitCodes = []struct {
	code int
	what string
}{
	{exitcode.OK, "success"},
	{exitcode.Failure, "any other failure"},
	{exitcode.Invalid, "invalid input (flags, sizes, names); nothing was written"},
	{exitcode.Permission, "permission denied: run as root"},
	{exitcode.NotSupported, "not supported: module not loaded, or the kernel lacks the feature"},
	{exitcode.Busy, "busy: the device or range is in use"},
	{exitcode.NotFound, "not found: no such device, memdev, region, ..."},
	{exitcode.Timeout, "timed out waiting for the kernel"},
	{exitcode.Interrupted, "interrupted; a region or namespace create rolls back first"},
}

// exitCodeHelp is the EXIT CODES block of --help: one code a line, each
// short enough not to wrap.
var exitCodeHelp = func() string {
	lines := []string{"EXIT CODES:"}
	for _, c := range exitCodes {
		lines = append(lines, fmt.Sprintf("%-4d %s", c.code, c.what))
	}
	return strings.Join(lines, "\n")
}()

// commands is the command list; one line per command.
func commands() []*cli.Command {
	return []*cli.Command{
		createCommand(),
		removeCommand(),
		releaseCommand(),
		listCommand(),
		rangesCommand(),
		nodeTablesCommand(),
		infoCommand(),
		regionCommand(),
		namespaceCommand(),
		poisonCommand(),
		eventCommand(),
		completionCommand(),
		completeCommand(),
		versionCommand(),
		helpCommand(),
		manCommand(),
	}
}

func main() {
	// cxlvctl does one thing at a time: it reads sysfs and writes the
	// kernel in order. A second P only makes the runtime wake idle threads
	// for its own goroutines, which under emulation (QEMU TCG) costs about
	// a tenth of a listing.
	runtime.GOMAXPROCS(1)
	// The signals stay caught until the exit: one that lands after the
	// command finished must not turn its result into a death by SIGINT
	// (exit 130, no message, with the work done).
	ctx, _ := interruptible(context.Background())
	os.Exit(run(ctx, os.Args, os.Stdout, os.Stderr))
}

// run executes one command line and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	args, err := normalizeArgs(app, args)
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	if dry, ok := app.Metadata[dryRunKey].(*writer.DryRun); ok && dry.JSON && err == nil {
		// --json: the plan is one JSON object, printed once complete.
		err = view.WriteJSON(dry.Out, view.DryRunPlan(dry.Steps()))
	}
	if runHook != nil {
		runHook(args, err)
	}
	if err == nil {
		return exitcode.OK
	}
	if err != errNoCommand {
		view.Error(stderr, err)
	}
	return exitcode.Of(err)
}

// errNoCommand is a command line without a command: the help, on
// stderr, says all there is to say; exit 1, as `cxl` and `ndctl` do.
var errNoCommand = errors.New("no command given")

// runHook, set by the tests, sees every command line run ends and its
// error, for the test of the exit-code table.
var runHook func(args []string, err error)

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:            "cxlvctl",
		Usage:           "control virtual CXL memory devices (cxl_virt)",
		Description:     exitCodeHelp,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "sysfs-root", Value: host.DefaultSys, Usage: "sysfs mount point (a captured tree in tests)"},
			&cli.StringFlag{Name: "debugfs-root", Value: host.DefaultDebugfs, Usage: "debugfs mount point"},
			&cli.StringFlag{Name: "proc-root", Value: host.DefaultProc, Usage: "procfs mount point"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the kernel writes as shell commands instead of doing them"},
			&cli.BoolFlag{Name: "version", Usage: "print the versions of cxlvctl and of the loaded cxl_virt module"},
			cli.HelpFlag, // urfave/cli adds it only to apps without a help command
		},
		Action: func(c *cli.Context) error {
			if c.Bool("version") {
				return printVersion(c)
			}
			// As cxl and ndctl do: no command is a failure, with the usage.
			c.App.Writer = c.App.ErrWriter
			if err := cli.ShowAppHelp(c); err != nil {
				return err
			}
			return errNoCommand
		},
		Commands:       commands(),
		ExitErrHandler: func(*cli.Context, error) {}, // run prints and picks the code
		OnUsageError:   onUsageError,
	}
	configureCommands(app.Commands)
	configureHelp(app)
	return app
}

// onUsageError makes a bad command line a one-line error with exit code 2
// instead of urfave/cli's help dump, naming flags as they are typed (--x,
// where Go's flag package says -x).
// A value a flag's Set refused says "--flag value: why", as the checks
// before the run do, unless why already says `--flag "value"`
// (events.ParseLog, region.ParseOnline).
func onUsageError(_ *cli.Context, err error, _ bool) error {
	msg := err.Error()
	if m := refusedValue.FindStringSubmatch(msg); m != nil {
		value, _ := strconv.Unquote(m[1])
		why := msg[len(m[0]):]
		if strings.Contains(why, "--"+m[2]+" "+m[1]) {
			return usagef("%s", why)
		}
		return usagef("--%s %s: %s", m[2], value, why)
	}
	return usagef("%s", singleDashFlag.ReplaceAllString(msg, "$1--$2"))
}

var (
	singleDashFlag = regexp.MustCompile(`(^|[\s:])-([a-z][a-z0-9-]+)`)
	// refusedValue is how Go's flag package words an error of Set.
	refusedValue = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -([a-z0-9-]+): `)
)

// configureCommands gives every command, registered here or by another
// file, the one-line usage errors and no "help" subcommand (-h stays).
func configureCommands(commands []*cli.Command) {
	for _, c := range commands {
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
		c.HideHelpCommand = true
		configureCommands(c.Subcommands)
	}
}

// usagef is a command line that cannot be run: cxlverr.ErrInvalid.
func usagef(format string, args ...any) error { return cxlverr.Invalidf(format, args...) }

// env is what every command needs, from the global flags.
type env struct {
	host        host.Root
	dryRun      bool
	w           writer.Writer
	out, errOut io.Writer
}

func newEnv(c *cli.Context) (*env, error) {
	sys, err := sysfs.NewFS(c.String("sysfs-root"))
	if err != nil {
		return nil, err
	}
	e := &env{
		host:   host.New(sys, c.String("proc-root"), c.String("debugfs-root")),
		dryRun: c.Bool("dry-run"),
		w:      kernelWriter,
		out:    c.App.Writer,
		errOut: c.App.ErrWriter,
	}
	if e.dryRun {
		dry := &writer.DryRun{Out: e.out, JSON: c.Bool("json")}
		e.w = dry
		if c.App.Metadata == nil {
			c.App.Metadata = map[string]any{}
		}
		c.App.Metadata[dryRunKey] = dry
	}
	return e, nil
}

// kernelWriter performs the kernel writes of commands not run with
// --dry-run; tests put a writertest.Recorder here.
var kernelWriter writer.Writer = writer.Kernel{}

// dryRunKey keeps the dry run's writer in the app for run to flush.
const dryRunKey = "dry-run"

// dryRunWriter is the --dry-run writer, nil on a real run.
func (e *env) dryRunWriter() *writer.DryRun {
	dry, _ := e.w.(*writer.DryRun)
	return dry
}

// control returns the cxl_virt control for this environment.
func (e *env) control() *virt.Control {
	ctl := virt.NewControl(e.host, e.w)
	ctl.DryRun = e.dryRun
	return ctl
}

// progress prints a state change of something that waits, to stderr.
func (e *env) progress(subject string) func(string) {
	return func(state string) { view.Progress(e.errOut, subject, state) }
}

// jsonFlag is the --json flag of commands that print something.
func jsonFlag() cli.Flag {
	return &cli.BoolFlag{Name: "json", Aliases: []string{"j"}, Usage: "print JSON"}
}
