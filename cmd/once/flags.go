package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// flagSet is a flag.FlagSet that reports its own errors: Go's flag package
// accepts both -name and --name, stops at the first non-flag argument and
// at "--" (so negative numbers can follow it).
type flagSet struct {
	*flag.FlagSet
	e *env
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
	switch {
	case errors.Is(err, flag.ErrHelp):
		writeCommandHelp(fs.e.stdout, c, fs)
		return exitOK, false
	case err != nil:
		return fs.usageError(c, "%s", err), false
	}
	return 0, true
}

// usageError reports a bad command line and returns exit status 2.
func (fs *flagSet) usageError(c *command, format string, args ...any) int {
	errorf(fs.e, "once "+c.name, format, args...)
	fmt.Fprintf(fs.e.stderr, "usage: once %s\n(run \"once %s --help\" for details)\n", c.usage, c.name)
	return exitUsage
}

// errorf writes one line "<who>: <message>" to stderr.
func errorf(e *env, who, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	msg = strings.ReplaceAll(msg, "\n", " ")
	fmt.Fprintf(e.stderr, "%s: %s\n", who, msg)
}

// maxQuote is how many bytes of user input an error message quotes.
const maxQuote = 40

// quoteValue renders untrusted input for an error message: Go-quoted (one
// line, escapes for control bytes), at most maxQuote bytes of it.
func quoteValue(s string) string {
	if len(s) > maxQuote {
		return strconv.Quote(s[:maxQuote]) + "..."
	}
	return strconv.Quote(s)
}
