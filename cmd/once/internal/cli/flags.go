package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/once-go/once/cmd/once/internal/msg"
)

// flagSet is a flag.FlagSet that reports its own errors: Go's flag package
// accepts both -name and --name, stops at the first non-flag argument and
// at "--" (so negative numbers can follow it). Its errors say how the
// command line should read: an unknown flag that may be a value, a flag
// after the values.
type flagSet struct {
	*flag.FlagSet
	e *env
	// dashdash: parse stopped at "--" (what follows are values, or a
	// command to run).
	dashdash bool
}

func newFlagSet(e *env, name string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, e: e}
}

// parse parses args. It returns ok = false with the exit status when the
// command must not run: after --help (status 0, help on stdout) or a bad
// command line (status 2, the reason on stderr).
func (fs *flagSet) parse(c *command, args []string) (status int, ok bool) {
	err := fs.Parse(args)
	rest := fs.Args()
	switch {
	case errors.Is(err, flag.ErrHelp):
		writeCommandHelp(fs.e.stdout, c, fs)
		return exitOK, false
	case err != nil && strings.HasPrefix(err.Error(), "flag provided but not defined"):
		// Parse has consumed the unknown argument: it is the one before rest.
		return fs.unknownFlag(c, args[len(args)-len(rest)-1]), false
	case err != nil:
		return fs.usageError(c, "%s", err), false
	}
	consumed := args[:len(args)-len(rest)]
	if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
		fs.dashdash = true
		return 0, true // after "--" everything is a value
	}
	for _, a := range rest {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name != "" && (fs.Lookup(name) != nil || name == "help" || name == "h") {
			return fs.usageError(c, "flag --%s after the value %s: flags go before values", name, quoteValue(rest[0])), false
		}
	}
	return 0, true
}

// unknownFlag reports an argument that looks like a flag but names none. A
// command that takes values may have been given a value that starts with
// "-" (a negative number, a url64 ID): the message says where those go.
func (fs *flagSet) unknownFlag(c *command, arg string) int {
	if !strings.HasPrefix(arg, "--") && strings.Contains(c.usage, "VALUE") {
		return fs.usageError(c, "%s is not a flag: values that start with \"-\" go after \"--\", as in once %s [FLAGS] -- %s",
			quoteValue(arg), c.name, quoteValue(arg))
	}
	name, _, _ := strings.Cut(arg, "=")
	return fs.usageError(c, "unknown flag %s", quoteValue(name))
}

// usageError reports a bad command line and returns exit status 2.
func (fs *flagSet) usageError(c *command, format string, args ...any) int {
	errorf(fs.e, "once "+c.name, format, args...)
	fmt.Fprintf(fs.e.stderr, "usage: once %s\n(run \"once %s --help\" for details)\n", c.usage, c.name)
	return exitUsage
}

// given reports whether the command line set the flag name.
func given(fs *flagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// errorf writes one line "<who>: <message>" to stderr.
func errorf(e *env, who, format string, args ...any) {
	msg.Errorf(e.stderr, who, format, args...)
}

// quoteValue renders untrusted input for an error message (msg.Quote).
func quoteValue(s string) string { return msg.Quote(s) }
