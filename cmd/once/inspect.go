package main

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/once-go/once/nonce"
)

var inspectCmd = &command{
	name:    "inspect",
	usage:   "inspect [--epoch RFC3339] [--prefix P] [--int] [--] [VALUE...]",
	summary: "take IDs apart: timestamp, machine ID, counter (JSON lines)",
	about: `Prints one JSON object per VALUE, on one line:

  $ once inspect A4M3aB6CIAA
  {"value":"A4M3aB6CIAA","unsigned":"253106924390850560","timestamp":"2026-11-30T10:36:33.274Z","machine_id":17,"counter":0}

value is the VALUE as given; unsigned is the 64-bit value in decimal (a JSON
string: JavaScript and jq would round a number above 2^53); timestamp is the
nonce's millisecond (RFC 3339, UTC, milliseconds) counted from --epoch;
machine_id (0..511) and counter (0..8191) are the other two fields of a
64-bit counter or sortable nonce. Encrypted nonces and masked IDs decode to
noise: unmask them first. VALUEs are parsed as by convert (--prefix, --int).`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, "inspect")
		epoch := fs.String("epoch", nonce.DefaultEpoch().Format(time.RFC3339), "the factory epoch, `RFC3339`")
		f := addIDFlags(fs, "", true)
		return fs, func(args []string) int {
			ep, err := time.Parse(time.RFC3339, *epoch)
			if err != nil {
				return fs.usageError(c, "--epoch %s: not an RFC 3339 time", quoteValue(*epoch))
			}
			in, err := f.input()
			if err != nil {
				return fs.usageError(c, "%v", err)
			}
			return eachValue(e, "once inspect", args, func(dst []byte, v string) ([]byte, error) {
				id, err := in.ParseAny(v)
				if err != nil {
					return dst, err
				}
				return appendInspect(dst, v, id.Uint64(), ep), nil
			})
		}
	},
}

// appendInspect appends the JSON object describing v.
func appendInspect(dst []byte, given string, v uint64, epoch time.Time) []byte {
	p := nonce.Split64(v, epoch)
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
