package cli

import "github.com/once-go/once/once"

const maskAbout = `The masked spelling of an ID is E(stored) under a 64-bit block cipher keyed
from a base key (the factory's Cipher64, as once.Options{Mask: true} shows
it); the database holds the stored value. VALUEs are parsed as by convert
(--prefix, --int), and printed in --to FORMAT with the prefix re-attached.
The base key is given as --key-env NAME or as --key-hex HEX (the process list
shows arguments: prefer --key-env). It is used as raw bytes, as the Elixir
library reads its key: --key-env takes the variable's bytes as they are (a
key made with "openssl rand -base64 32" is its 44 characters, not the 32
bytes they encode), --key-hex the bytes its digits spell. Use the key and
cipher of the application (its ONCE_KEY, in the examples). Key material
never appears in messages.`

var maskCmd = &command{
	name:    "mask",
	usage:   "mask --to FORMAT [--prefix P] [--int] [--cipher blowfish|speck|des3] (--key-hex HEX | --key-env NAME) [--] [VALUE...]",
	summary: "print the masked spelling of stored IDs",
	about: `Takes stored values (what the database holds) and prints the masked values
(what the application and its API show).

` + maskAbout + `

  $ export ONCE_KEY='an example base key of 32+ bytes!'
  $ once mask --key-env ONCE_KEY --prefix usr_ --int --to url64 -- usr_123
  usr_ZhR50oRoNfg`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) { return maskFlags(e, c, true) },
}

var unmaskCmd = &command{
	name:    "unmask",
	usage:   "unmask --to FORMAT [--prefix P] [--int] [--cipher blowfish|speck|des3] (--key-hex HEX | --key-env NAME) [--] [VALUE...]",
	summary: "print the stored value behind masked IDs",
	about: `Takes masked values (what the application and its API show) and prints the
stored values (what the database holds).

` + maskAbout + `

  $ export ONCE_KEY='an example base key of 32+ bytes!'
  $ once unmask --key-env ONCE_KEY --prefix usr_ --to signed usr_ZhR50oRoNfg
  usr_123`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) { return maskFlags(e, c, false) },
}

// maskFlags builds mask (mask = true) or unmask.
func maskFlags(e *env, c *command, mask bool) (*flagSet, func([]string) int) {
	fs := newFlagSet(e, c.name)
	f := addIDFlags(fs, "the output `FORMAT`: url64, hex, hex32, signed or unsigned (required)", true)
	k := addKeyFlags(fs, "of the masking")
	return fs, func(args []string) int {
		in, err := f.input()
		if err != nil {
			return fs.usageError(c, "%v", err)
		}
		out, err := f.output("")
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
		masked := &out
		if !mask {
			masked = &in
		}
		masked.Mask, masked.Generator = true, once.Bind(fac)
		return eachValue(e, "once "+c.name, args, func(dst []byte, v string) ([]byte, error) {
			id, err := in.ParseAny(v)
			if err != nil {
				return dst, err
			}
			return out.AppendText(dst, id)
		})
	}
}
