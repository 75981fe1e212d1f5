package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var inspectCmd = &command{
	name:    "inspect",
	usage:   "inspect [--epoch RFC3339] [--prefix P] [--int] [--grep] [--cipher blowfish|speck|des3] [--key-hex HEX | --key-env NAME | --keyring-env NAME | --keyring-file PATH] [--] [VALUE...]",
	summary: "take IDs apart: timestamp, machine ID, counter (JSON lines)",
	about: `Prints one JSON object per VALUE, on one line:

  $ once inspect A4M3aB6CIAA
  {"value":"A4M3aB6CIAA","unsigned":"253106924390850560","timestamp":"2026-11-30T10:36:33.274Z","machine_id":17,"counter":0}

value is the VALUE as given; unsigned is the 64-bit value in decimal (a JSON
string: JavaScript and jq would round a number above 2^53); timestamp is the
nonce's millisecond (RFC 3339, UTC, milliseconds) counted from --epoch;
machine_id (0..511) and counter (0..8191) are the other two fields of a
64-bit counter or sortable nonce. VALUEs are parsed as by convert
(--prefix, --int).

With --grep, each VALUE (or line of standard input) is text, such as a log
line, and inspect takes apart every ID in it: every word (a run of letters,
digits, "_" and "-") that is an ID with a prefix (with --prefix P: with P),
and with --int every number of 15 digits or more (the stored values of IDs
made from seven hours after the epoch on; shorter numbers in logs are
counts and durations). "value" is the word as found:

  $ once inspect --grep 'GET /users/usr_A4M3aB6CIAA 200 took=3ms'
  {"value":"usr_A4M3aB6CIAA","unsigned":"253106924390850560","timestamp":"2026-11-30T10:36:33.274Z","machine_id":17,"counter":0}

Masked IDs (what an API shows with once.Options{Mask: true}) and encrypted
nonces are ciphertext: their fields are noise. With the key (--key-env or
--key-hex, and --cipher, as for unmask) inspect unmasks each VALUE first
and prints the fields of the stored value (unsigned is then the stored
value). Without it, a value whose timestamp would lie more than a day
ahead of this machine's clock is reported as masked (one error line, no
output line, exit status 1), as nearly every masked value is; a masked
value whose noise happens to read as a past time (a share of about
(now - epoch) / 139 years of them: 1.4% in 2026) cannot be told apart,
so unmask IDs known to be masked.

With the keys of every key generation (--keyring-env NAME or --keyring-file
PATH, as for unmask), inspect unmasks each VALUE with the key of the
generation its prefix names and adds "generation" (1 for --prefix P itself,
g for P with g before its final separator) and "key", the fingerprint of
that generation's key (the one the application's Keyring.String shows):
  {"value":"usr2_...","unsigned":"...",...,"counter":0,"generation":2,"key":"4520b36c"}`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, "inspect")
		epoch := fs.String("epoch", nonce.DefaultEpoch().Format(time.RFC3339), "the factory epoch, `RFC3339`")
		f := addIDFlags(fs, "", true)
		grep := fs.Bool("grep", false, "VALUEs (or the lines of standard input) are text: inspect every ID found in it (see above)")
		k := addKeyFlags(fs, "of masked VALUEs")
		k.addKeyringFlags()
		return fs, func(args []string) int {
			ep, err := time.Parse(time.RFC3339, *epoch)
			if err != nil {
				return fs.usageError(c, "--epoch %s: not an RFC 3339 time", quoteValue(*epoch))
			}
			in, err := f.input()
			if err != nil {
				return fs.usageError(c, "%v", err)
			}
			if given(fs, "cipher") && !k.given() && !k.hasRing() {
				return fs.usageError(c, "--cipher is for masked VALUEs: give their key with --key-env or --key-hex")
			}
			var ring *once.Keyring
			if k.given() || k.hasRing() {
				var b *once.Binding
				if b, ring, err = k.masking(); err != nil {
					return fs.usageError(c, "%v", err)
				}
				in.opts.Mask, in.opts.Generator, in.ring = true, b, ring
			}
			unmasked := k.given() || k.hasRing()
			var split func(string) []string
			parse := in.parse
			if *grep {
				split, parse = in.find, in.parseFound
			}
			return eachValue(e, "once inspect", args, split, func(dst []byte, v string) ([]byte, error) {
				id, err := parse(v)
				if err != nil {
					return dst, err
				}
				p := nonce.Split64(id.Uint64(), ep)
				if ahead := time.Until(p.Time); ahead > maxAhead {
					return dst, notPlain(v, p.Time, unmasked)
				}
				dst = appendInspect(dst, v, id.Uint64(), p)
				if ring == nil {
					return dst, nil
				}
				g := in.generationOf(v, in.opts.Prefix)
				if *grep {
					g = in.generationOf(v, in.prefixOf(v))
				}
				dst = append(dst[:len(dst)-1], `,"generation":`...)
				dst = strconv.AppendInt(dst, int64(g), 10)
				if g >= 1 && g <= ring.Generations() {
					dst = append(dst, `,"key":"`...)
					dst = append(dst, ring.Fingerprints()[g-1]...)
					dst = append(dst, '"')
				}
				return append(dst, '}'), nil
			})
		}
	},
}

// maxAhead is how far past this machine's clock a timestamp may lie and
// still be read as the time an ID was made: clocks set wrong by hours, not
// by days. A masked value's noise reads as a time spread evenly over the
// 139 years after the epoch, nearly always in the future.
const maxAhead = 24 * time.Hour

// notPlain is the error for a VALUE whose timestamp lies in the future:
// its fields are noise.
func notPlain(v string, ts time.Time, unmasked bool) error {
	when := ts.UTC().Format("2006-01-02")
	if unmasked {
		return fmt.Errorf("%s unmasked with this key and cipher reads as made on %s, in the future: not masked with this key and cipher (or made with another --epoch); its time and machine ID cannot be read",
			quoteValue(v), when)
	}
	return fmt.Errorf("%s reads as made on %s, in the future: a masked ID or an encrypted nonce (unmask it with its key: --key-env or --key-hex), or made with another --epoch; its time and machine ID cannot be read",
		quoteValue(v), when)
}

// appendInspect appends the JSON object describing v, whose fields are p.
func appendInspect(dst []byte, given string, v uint64, p nonce.Parts) []byte {
	q, _ := json.Marshal(given) // a string always marshals
	dst = append(dst, `{"value":`...)
	dst = append(dst, q...)
	dst = append(dst, `,"unsigned":"`...)
	dst = strconv.AppendUint(dst, v, 10)
	dst = append(dst, `","timestamp":"`...)
	dst = p.Time.UTC().AppendFormat(dst, "2006-01-02T15:04:05.000Z07:00")
	dst = append(dst, `","machine_id":`...)
	dst = strconv.AppendInt(dst, int64(p.MachineID), 10)
	dst = append(dst, `,"counter":`...)
	dst = strconv.AppendInt(dst, int64(p.Counter), 10)
	return append(dst, '}')
}
