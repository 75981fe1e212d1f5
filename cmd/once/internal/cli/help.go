package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/once-go/once/cmd/once/internal/coord"
)

// valueRules is the part of the help shared by the ID commands.
const valueRules = `Values:
  Flags come before values; "--" ends the flags, so values that start with
  "-" (negative numbers) can follow it. With no VALUE arguments, values are
  read from standard input, one per line (a trailing "\r" is dropped; an
  empty line is an empty, hence invalid, value). Each valid value prints one
  line on standard output, in order, with nothing else on it. An invalid
  value prints a one-line error on standard error naming it (quoting at most
  40 bytes) and no output line; the other values are still printed and the
  exit status is 1.

Formats (the same 64 bits, big-endian):
  url64     base64url without padding, 11 chars   zAjhfZyAAAE
  hex       lowercase hex, 16 chars                cc08e17d9c800001
  hex32     lowercase base32hex, 13 chars          pg4e2vcsg0002
  signed    decimal int64                          -3744495160545771519
  unsigned  decimal uint64                         14702248913163780097
  Input is told apart by length (11 url64, 13 hex32, 16 hex; hex and hex32
  in either case); a run of digits of another length (a leading "-" or "+"
  allowed) is a decimal integer in [-2^63, 2^64-1], signed or unsigned, and
  with --int every value is one. Output is canonical.
`

const exitRules = `Exit status:
  0  success
  1  an invalid VALUE, or any other failure (the reason on standard error)
  2  bad command line; lease free of a held ID without --force
  3  lease hold: no lease within the acquire timeout (every machine ID
     held, or the coordinator unreachable all along)
  4  lease free: the machine ID is not held (nothing to release)
  lease hold -- CMD exits with CMD's status once CMD has run: its exit
  code, 128+N if signal N ended it (137: SIGKILL after --grace), 127 if
  CMD was not found, 126 if it could not be started
`

// writeTopHelp writes "once --help".
func writeTopHelp(w io.Writer) {
	fmt.Fprint(w, `once: convert, mask, unmask, inspect and generate once IDs; migrate, hold,
list and free machine-ID leases.

usage: once COMMAND [FLAGS] [--] [VALUE...]
       once lease COMMAND [FLAGS]
       once help [COMMAND]

ID commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nLease commands:\n")
	for _, c := range leaseCommands() {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nSynopsis:\n")
	for _, c := range append(commands(), leaseCommands()...) {
		fmt.Fprintf(w, "  once %s\n", c.usage)
	}
	fmt.Fprint(w, "\n", valueRules, "\n", coord.Help(), "\n", exitRules)
	fmt.Fprint(w, "\nRun \"once COMMAND --help\" (or \"once help COMMAND\") for a command's flags.\n")
}

// writeLeaseHelp writes "once lease --help".
func writeLeaseHelp(w io.Writer) {
	fmt.Fprint(w, "once lease: migrate, hold, list and free machine-ID leases.\n\nCommands:\n")
	for _, c := range leaseCommands() {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nSynopsis:\n")
	for _, c := range leaseCommands() {
		fmt.Fprintf(w, "  once %s\n", c.usage)
	}
	fmt.Fprint(w, "\n", coord.Help(), "\n", exitRules)
	fmt.Fprint(w, "\nRun \"once lease COMMAND --help\" for a command's flags.\n")
}

// writeCommandHelp writes "once COMMAND --help": synopsis, description,
// every flag, and the shared rules.
func writeCommandHelp(w io.Writer, c *command, fs *flagSet) {
	fmt.Fprintf(w, "usage: once %s\n\n%s\n", c.usage, strings.TrimSpace(c.about))
	fmt.Fprint(w, "\nFlags (-name and --name are the same):\n")
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		head := "--" + f.Name
		if arg != "" {
			head += " " + arg
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "0s" && f.DefValue != "false" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %s\n      %s%s\n", head, usage, def)
	})
	fmt.Fprint(w, "  --help\n      print this help\n")
	if strings.HasPrefix(c.name, "lease ") {
		fmt.Fprint(w, "\n", coord.Help())
	} else if !strings.HasPrefix(c.name, "sql ") {
		fmt.Fprint(w, "\n", valueRules)
	}
	fmt.Fprint(w, "\n", exitRules)
}

// helpCommand runs "once help [COMMAND]".
func helpCommand(e *env, args []string) int {
	if len(args) == 0 {
		writeTopHelp(e.stdout)
		return exitOK
	}
	name := strings.Join(args, " ")
	if name == "lease" {
		writeLeaseHelp(e.stdout)
		return exitOK
	}
	for _, c := range append(commands(), leaseCommands()...) {
		if c.name == name {
			fs, _ := c.flags(e, c)
			writeCommandHelp(e.stdout, c, fs)
			return exitOK
		}
	}
	errorf(e, "once help", "unknown command %s", quoteValue(name))
	return exitUsage
}
