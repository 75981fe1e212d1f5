package cli

var convertCmd = &command{
	name:    "convert",
	usage:   "convert --to FORMAT [--prefix P] [--int] [--] [VALUE...]",
	summary: "print IDs in another format",
	about: `Parses each VALUE (with prefix P if given; with --int as a decimal integer,
otherwise as url64, hex32 or hex told apart by length) and prints it in
FORMAT with the prefix re-attached, one line per value, in order.

  $ once convert --to signed zAjhfZyAAAE
  -3744495160545771519
  $ once convert --int --to url64 -- -3744495160545771519
  zAjhfZyAAAE
  $ once convert --prefix usr_ --to hex usr_M48oJk4HnzE
  usr_338f28264e079f31`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, "convert")
		f := addIDFlags(fs, "the output `FORMAT`: url64, hex, hex32, signed or unsigned (required)", true)
		return fs, func(args []string) int {
			in, err := f.input()
			if err != nil {
				return fs.usageError(c, "%v", err)
			}
			out, err := f.output("")
			if err != nil {
				return fs.usageError(c, "%v", err)
			}
			return eachValue(e, "once convert", args, nil, func(dst []byte, v string) ([]byte, error) {
				id, err := in.parse(v)
				if err != nil {
					return dst, err
				}
				return out.AppendText(dst, id)
			})
		}
	},
}
