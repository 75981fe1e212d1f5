package cli

import (
	"strconv"

	"github.com/once-go/once/once"
)

const maskAbout = `The masked spelling of an ID is E(stored) under a 64-bit block cipher keyed
from a base key (the factory's Cipher64, as once.Options{Mask: true} shows
it); the database holds the stored value. VALUEs are parsed as by convert
(--prefix, --int), and printed in --to FORMAT with the prefix re-attached.
The base key is given as --key-env NAME or as --key-hex HEX (the process list
shows arguments: prefer --key-env). It is used as raw bytes, as the Elixir
library reads its key: --key-env takes the variable's bytes as they are (a
key made with "openssl rand -hex 32" is its 64 characters, not the 32 bytes
they spell), --key-hex the bytes its digits spell. Use the key and
cipher of the application (its ONCE_KEY, in the examples). Key material
never appears in messages.

After a key rotation, give the keys of every generation instead, with
--keyring-env NAME or --keyring-file PATH: one line per generation,
"<generation> <key> [current]", as the application's keyring reads them
(docs/ids.md, "Key rotation"). The prefix then says which generation
masked a value: P for generation 1, P with the generation before its final
separator for later ones (usr_, usr2_, usr3_). unmask reads every
generation and prints, after a tab, the generation of each VALUE; mask
writes the keyring's current generation, or --generation N's. A
generation the keyring lacks is an error, never a guess with another key.`

var maskCmd = &command{
	name:    "mask",
	usage:   "mask [--to FORMAT] [--prefix P] [--int] [--cipher blowfish|speck|des3] (--key-hex HEX | --key-env NAME | --keyring-env NAME [--generation N] | --keyring-file PATH [--generation N]) [--] [VALUE...]",
	summary: "print the masked spelling of stored IDs",
	about: `Takes stored values (what the database holds: a bigint, such as
255514662584827904) and prints the masked values (what the application
and its API show), in url64 unless --to says otherwise. With --prefix P
the output carries P; a VALUE may carry it too, or not.

` + maskAbout + `

  $ export ONCE_KEY='an example base key of 32+ bytes!'
  $ once mask --key-env ONCE_KEY --prefix usr_ 123
  usr_ZhR50oRoNfg`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) { return maskFlags(e, c, true) },
}

var unmaskCmd = &command{
	name:    "unmask",
	usage:   "unmask [--to FORMAT] [--prefix P] [--int] [--cipher blowfish|speck|des3] (--key-hex HEX | --key-env NAME | --keyring-env NAME | --keyring-file PATH) [--] [VALUE...]",
	summary: "print the stored value behind masked IDs",
	about: `Takes masked values (what the application and its API show) and prints the
stored values (what the database holds). Without --to they are printed as
the database spells them, signed decimal, without the prefix: ready for a
WHERE clause. With --to FORMAT the prefix is re-attached.

` + maskAbout + `

  $ export ONCE_KEY='an example base key of 32+ bytes!'
  $ once unmask --key-env ONCE_KEY --prefix usr_ usr_ZhR50oRoNfg
  123
  $ once unmask --key-env ONCE_KEY --prefix usr_ --to hex usr_ZhR50oRoNfg
  usr_000000000000007b`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) { return maskFlags(e, c, false) },
}

// maskFlags builds mask (mask = true) or unmask.
func maskFlags(e *env, c *command, mask bool) (*flagSet, func([]string) int) {
	fs := newFlagSet(e, c.name)
	toUsage := "the output `FORMAT`: url64 (the default), hex, hex32, signed or unsigned"
	if !mask {
		toUsage = "the output `FORMAT`: url64, hex, hex32, signed or unsigned, with the prefix (default: signed, without it, as the database holds it)"
	}
	f := addIDFlags(fs, toUsage, true)
	f.stored = mask
	if mask {
		fs.Lookup("prefix").Usage = "the prefix `P` of the output values (e.g. usr_); a VALUE may carry it or not"
	}
	k := addKeyFlags(fs, "of the masking")
	k.addKeyringFlags()
	var gen int
	if mask {
		fs.IntVar(&gen, "generation", 0, "with a keyring, mask under key generation `N` (default: the keyring's current generation)")
	}
	return fs, func(args []string) int {
		in, err := f.input()
		if err != nil {
			return fs.usageError(c, "%v", err)
		}
		out, err := f.output("url64")
		if err == nil && !mask && f.to == "" {
			out = once.Options{Format: once.Signed} // the database's spelling
		}
		if err != nil {
			return fs.usageError(c, "%v", err)
		}
		if !k.given() && !k.hasRing() {
			return fs.usageError(c, "a base key is required: --key-hex HEX or --key-env NAME (or the keys of every generation: --keyring-env NAME or --keyring-file PATH)")
		}
		b, ring, err := k.masking()
		if err != nil {
			return fs.usageError(c, "%v", err)
		}
		if gen != 0 && (ring == nil || gen < 1 || gen > ring.Generations()) {
			return fs.usageError(c, "--generation %d: want a generation of the keyring (--keyring-env or --keyring-file)", gen)
		}
		if mask {
			out.Mask, out.Generator = true, b
		} else {
			in.opts.Mask, in.opts.Generator, in.ring = true, b, ring
		}
		return eachValue(e, "once "+c.name, args, nil, func(dst []byte, v string) ([]byte, error) {
			id, err := in.parse(v)
			if err != nil {
				return dst, err
			}
			if mask && gen != 0 {
				return out.AppendGeneration(dst, id, gen)
			}
			if dst, err = out.AppendText(dst, id); err != nil || mask || ring == nil {
				return dst, err
			}
			// unmask with a keyring: the generation the VALUE was masked
			// under, after a tab.
			dst = append(dst, '\t')
			return strconv.AppendInt(dst, int64(in.generationOf(v, in.opts.Prefix)), 10), nil
		})
	}
}
