package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// modulePrefix is the path prefix of the project's modules: the root
// github.com/once-go/once and those below it.
const modulePrefix = "github.com/once-go/"

var versionCmd = &command{
	name:    "version",
	usage:   "version",
	summary: "print the versions of once and of the once modules built into it",
	about: `Prints the module of the command and its version, then each
github.com/once-go module built into it with its version, then the Go
version and platform it was built for. A binary installed with
"go install github.com/once-go/once/cmd/once@VERSION" prints VERSION
for each; one built in the source tree prints (devel).`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, c.name)
		return fs, func(args []string) int {
			if len(args) > 0 {
				return fs.usageError(c, "unexpected argument %s (version takes none)", quoteValue(args[0]))
			}
			bi, ok := debug.ReadBuildInfo()
			if !ok {
				errorf(e, "once version", "the binary carries no build information (built without module support)")
				return exitFail
			}
			writeVersion(e.stdout, bi)
			return exitOK
		}
	},
}

// writeVersion prints the main module, the github.com/once-go modules
// among bi's dependencies (a replaced one with its replacement) and the Go
// version.
func writeVersion(w io.Writer, bi *debug.BuildInfo) {
	fmt.Fprintf(w, "%s %s\n", bi.Main.Path, develIfEmpty(bi.Main.Version))
	for _, d := range bi.Deps {
		if !strings.HasPrefix(d.Path, modulePrefix) {
			continue
		}
		line := d.Path + " " + develIfEmpty(d.Version)
		if r := d.Replace; r != nil {
			line += " => " + r.Path
			if r.Version != "" {
				line += " " + r.Version
			}
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%s %s/%s\n", bi.GoVersion, runtime.GOOS, runtime.GOARCH)
}

// develIfEmpty is v, or "(devel)" for a module built from a directory
// rather than a version.
func develIfEmpty(v string) string {
	if v == "" {
		return "(devel)"
	}
	return v
}
