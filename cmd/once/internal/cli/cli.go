// Package cli is the command line of once: its commands, their flags and
// help. [Run] runs it; the lease coordinators are package coord's, the
// processes that lease hold runs package supervise's.
package cli

import (
	"io"
)

// Exit statuses.
const (
	exitOK      = 0 // success
	exitFail    = 1 // an invalid VALUE or any other failure
	exitUsage   = 2 // bad command line
	exitNoLease = 3 // lease hold: no lease within the acquire timeout
	exitNotHeld = 4 // lease free: the machine ID is not held
)

// env is what a command runs with: its standard streams.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one (sub)command of the CLI.
type command struct {
	name    string // as typed: "convert", "lease hold"
	usage   string // the synopsis after "once "
	summary string // one line for the command list
	about   string // paragraphs after the synopsis in --help
	// flags returns the command's flag set and the function that runs the
	// command on the parsed flags and the remaining arguments.
	flags func(e *env, c *command) (*flagSet, func(args []string) int)
}

// commands lists the ID commands; the lease commands sit under "lease".
func commands() []*command {
	return []*command{convertCmd, maskCmd, unmaskCmd, inspectCmd, genCmd, sqlInstallCmd, versionCmd}
}

// Run runs the CLI with args (without the program name) and returns the
// exit status.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		writeTopHelp(stderr)
		return exitUsage
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help", "help":
		return helpCommand(e, args[1:])
	case "lease":
		return runLease(e, args[1:])
	case "sql":
		return runSQL(e, args[1:])
	default:
		for _, c := range commands() {
			if c.name == name {
				return runCommand(e, c, args[1:])
			}
		}
		errorf(e, "once", "unknown command %s (run \"once --help\")", quoteValue(name))
		return exitUsage
	}
}

// runLease dispatches "once lease SUBCOMMAND".
func runLease(e *env, args []string) int {
	if len(args) == 0 {
		writeLeaseHelp(e.stderr)
		return exitUsage
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			return helpCommand(e, append([]string{"lease"}, args[1:]...))
		}
		writeLeaseHelp(e.stdout)
		return exitOK
	default:
		for _, c := range leaseCommands() {
			if c.name == "lease "+name {
				return runCommand(e, c, args[1:])
			}
		}
		errorf(e, "once lease", "unknown command %s (run \"once lease --help\")", quoteValue(name))
		return exitUsage
	}
}

// runCommand parses c's flags from args and runs it.
func runCommand(e *env, c *command, args []string) int {
	fs, do := c.flags(e, c)
	if status, ok := fs.parse(c, args); !ok {
		return status
	}
	return do(fs.Args())
}
