package cli

import (
	"bufio"
	"fmt"
	"os"
	"strconv"

	"github.com/once-go/once/cmd/once/internal/supervise"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var genCmd = &command{
	name:    "gen",
	usage:   "gen [-n N] [--kind counter|sortable|encrypted] [--machine-id M] [--prefix P] [--to FORMAT] [--mask] [--cipher blowfish|speck|des3] [--key-hex HEX | --key-env NAME]",
	summary: "generate fresh IDs offline (for tests and one-off use)",
	about: `Prints N fresh 64-bit values from a nonce factory with machine ID M, in
FORMAT (default url64) with prefix P, one per line. Encrypted values need a
base key (--key-hex or --key-env) and use --cipher. With --mask (and the
key and cipher of the application) it prints them masked, as the
application shows them (once.Options{Mask: true}), for test data:

  once gen --machine-id 7 -n 3 --mask --key-env ONCE_KEY --prefix usr_

Values are unique only while no other live generator uses machine ID M and
no earlier one made values with it in the last second or so (a previous
holder's clock may run that far ahead). Take M from a lease, and run gen
under it:

  once lease hold --driver D --dsn DSN -- once gen -n 1000

lease hold starts gen only once its machine ID may be used, passes it in
ONCE_MACHINE_ID (gen's default for --machine-id), and stops gen if the lease
is lost. With --machine-id and no lease, gen warns on standard error.`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, "gen")
		n := fs.Int("n", 1, "how many values to print (`N`)")
		kind := fs.String("kind", "counter", "the nonce `kind`: counter, sortable or encrypted")
		machine := fs.Int("machine-id", 0, "the machine ID `M`, 0..511 (default: $ONCE_MACHINE_ID, set by once lease hold -- CMD; one of the two is required)")
		f := addIDFlags(fs, "the output `FORMAT`: url64, hex, hex32, signed or unsigned", false)
		mask := fs.Bool("mask", false, "print the values masked with the key (--key-env or --key-hex) and --cipher, as the application shows them")
		k := addKeyFlags(fs, "of encrypted values and --mask")
		return fs, func(args []string) int {
			if len(args) > 0 {
				return fs.usageError(c, "unexpected argument %s (gen takes no values)", quoteValue(args[0]))
			}
			if *n < 0 {
				return fs.usageError(c, "-n %d: want 0 or more", *n)
			}
			leased, err := leasedMachineID()
			switch {
			case err != nil:
				return fs.usageError(c, "%v", err)
			case !given(fs, "machine-id") && leased < 0:
				return fs.usageError(c, "--machine-id M (0..%d) is required, or run gen under \"once lease hold ... -- once gen\", which sets %s", nonce.MaxMachineID, supervise.MachineIDEnv)
			case !given(fs, "machine-id"):
				*machine = leased
			case *machine < 0 || *machine > nonce.MaxMachineID:
				return fs.usageError(c, "--machine-id %d: out of range 0..%d", *machine, nonce.MaxMachineID)
			case leased >= 0 && *machine != leased:
				return fs.usageError(c, "--machine-id %d: the lease in %s is machine ID %d", *machine, supervise.MachineIDEnv, leased)
			}
			draw, err := genKind(*kind, k, *mask)
			if err != nil {
				return fs.usageError(c, "%v", err)
			}
			if _, err := f.input(); err != nil { // validates --prefix
				return fs.usageError(c, "%v", err)
			}
			out, err := f.output("url64")
			if err != nil {
				return fs.usageError(c, "%v", err)
			}
			fac, err := k.factory(*machine)
			if err != nil {
				return fs.usageError(c, "%v", err)
			}
			if *mask {
				out.Mask, out.Generator = true, once.Bind(fac)
			}
			if leased < 0 {
				fmt.Fprintf(e.stderr, "once gen: warning: values are unique only while no other live generator uses machine ID %d (run gen under once lease hold)\n", *machine)
			}
			return genValues(e, *n, func() (uint64, error) { return draw(fac) }, out)
		}
	},
}

// leasedMachineID returns the machine ID in ONCE_MACHINE_ID, -1 if the
// variable is not set.
func leasedMachineID() (int, error) {
	v, ok := os.LookupEnv(supervise.MachineIDEnv)
	if !ok {
		return -1, nil
	}
	id, err := strconv.Atoi(v)
	if err != nil || id < 0 || id > nonce.MaxMachineID {
		return -1, fmt.Errorf("%s=%s: not a machine ID 0..%d", supervise.MachineIDEnv, quoteValue(v), nonce.MaxMachineID)
	}
	return id, nil
}

// genKind returns the generator method for --kind and checks the key flags.
func genKind(kind string, k *keyFlags, mask bool) (func(*nonce.Factory) (uint64, error), error) {
	if mask && !k.given() {
		return nil, fmt.Errorf("--mask needs the application's base key: --key-env NAME or --key-hex HEX")
	}
	switch kind {
	case "counter", "sortable":
		if k.given() && !mask {
			return nil, fmt.Errorf("--kind %s takes no key (the base key is for --kind encrypted and --mask)", kind)
		}
		if kind == "sortable" {
			return (*nonce.Factory).Sortable64, nil
		}
		return (*nonce.Factory).Counter64, nil
	case "encrypted":
		if !k.given() {
			return nil, fmt.Errorf("--kind encrypted needs a base key: --key-hex HEX or --key-env NAME")
		}
		return (*nonce.Factory).Encrypted64, nil
	}
	return nil, fmt.Errorf("--kind %s: unknown kind (want counter, sortable or encrypted)", quoteValue(kind))
}

// genValues prints n values drawn with next in the format of out.
func genValues(e *env, n int, next func() (uint64, error), out once.Options) int {
	w := bufio.NewWriter(e.stdout)
	var line []byte
	for range n {
		v, err := next()
		if err == nil {
			line, err = out.AppendText(line[:0], once.FromUint64(v))
		}
		if err != nil {
			w.Flush()
			errorf(e, "once gen", "%s", trimOnce(err))
			return exitFail
		}
		w.Write(append(line, '\n'))
	}
	if err := w.Flush(); err != nil {
		errorf(e, "once gen", "writing standard output: %v", err)
		return exitFail
	}
	return exitOK
}
