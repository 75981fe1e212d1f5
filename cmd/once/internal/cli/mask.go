package cli

import "github.com/once-go/once/once"

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
never appears in messages.`

var maskCmd = &command{
	name:    "mask",
	usage:   "mask [--to FORMAT] [--prefix P] [--int] [--cipher blowfish|speck|des3] (--key-hex HEX | --key-env NAME) [--] [VALUE...]",
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
	usage:   "unmask [--to FORMAT] [--prefix P] [--int] [--cipher blowfish|speck|des3] (--key-hex HEX | --key-env NAME) [--] [VALUE...]",
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
		if !k.given() {
			return fs.usageError(c, "a base key is required: --key-hex HEX or --key-env NAME")
		}
		fac, err := k.factory(0)
		if err != nil {
			return fs.usageError(c, "%v", err)
		}
		if mask {
			out.Mask, out.Generator = true, once.Bind(fac)
		} else {
			in.opts.Mask, in.opts.Generator = true, once.Bind(fac)
		}
		return eachValue(e, "once "+c.name, args, nil, func(dst []byte, v string) ([]byte, error) {
			id, err := in.parse(v)
			if err != nil {
				return dst, err
			}
			return out.AppendText(dst, id)
		})
	}
}
