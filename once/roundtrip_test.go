package once_test

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// appOptions lists every app format, with and without prefix and mask (the
// masked ones bound to f).
func appOptions(f *nonce.Factory) []once.Options {
	var all []once.Options
	b := once.Bind(f)
	for _, format := range []once.Format{once.URL64, once.Hex, once.Hex32, once.Signed, once.Unsigned} {
		for _, prefix := range []string{"", "usr_"} {
			for _, mask := range []bool{false, true} {
				all = append(all, once.Options{Prefix: prefix, Format: format, Mask: mask, Generator: b})
			}
		}
	}
	return all
}

func name(o once.Options) string { return fmt.Sprintf("%s/%q/mask=%v", o.Format, o.Prefix, o.Mask) }

func TestRoundTripFormatPairs(t *testing.T) {
	f := keyFactory(t, testBaseKey, nonce.Speck)
	opts := appOptions(f)
	r := rand.New(rand.NewPCG(7, 7))
	values := append([]uint64{}, edgeValues[1:]...) // not 0: the zero ID has no spelling
	for range 200 {
		values = append(values, r.Uint64())
	}
	for _, a := range opts {
		for _, b := range opts {
			for _, v := range values {
				id := once.FromUint64(v)
				ta, err := a.AppendText(nil, id)
				if err != nil {
					t.Fatal(err)
				}
				pa, err := once.OptionsParse(a, string(ta))
				if err != nil || pa != id {
					t.Fatalf("%s: %q parses to %v, %v; want %d", name(a), ta, pa.Uint64(), err, v)
				}
				tb, err := b.AppendText(nil, pa)
				if err != nil {
					t.Fatal(err)
				}
				if pb, err := once.OptionsParse(b, string(tb)); err != nil || pb != id {
					t.Fatalf("%s -> %s: %q parses to %v, %v; want %d", name(a), name(b), tb, pb.Uint64(), err, v)
				}
				// One spelling per ID: b's parser rejects a's text in another
				// text format; the lenient parser reads text formats
				// by length when prefix and mask agree.
				textA := a.Format != once.Signed && a.Format != once.Unsigned
				textB := b.Format != once.Signed && b.Format != once.Unsigned
				if textA && textB && a.Mask == b.Mask && string(ta) != string(tb) {
					if _, err := once.OptionsParse(b, string(ta)); !errors.Is(err, once.ErrInvalid) {
						t.Fatalf("%s accepts %s text %q: %v", name(b), name(a), ta, err)
					}
				}
				if textA && textB && a.Prefix == b.Prefix && a.Mask == b.Mask {
					if pb, err := b.ParseAny(string(ta)); err != nil || pb != id {
						t.Fatalf("%s reading %s text %q leniently: %v, %v", name(b), name(a), ta, pb.Uint64(), err)
					}
				}
			}
		}
	}
}

// Typed IDs round-trip through text, JSON and Scan/Value for every DB format.
func TestRoundTripTyped(t *testing.T) {
	maskBinding.Set(keyFactory(t, testBaseKey, nonce.Blowfish))
	defer maskBinding.Set(nil)
	r := rand.New(rand.NewPCG(8, 8))
	for range 500 {
		v := r.Uint64()
		checkTyped(t, UserID(once.FromUint64(v)))
		checkTyped(t, OrgID(once.FromUint64(v)))
		checkTyped(t, MaskedID(once.FromUint64(v)))
		checkTyped(t, once.Typed[signedSpec](once.FromUint64(v)))
		checkTyped(t, once.Typed[unsignedDB](once.FromUint64(v)))
		checkTyped(t, once.Typed[hexDBSpec](once.FromUint64(v)))
		checkTyped(t, once.FromUint64(v))
	}
}

func checkTyped[T once.IDType](t *testing.T, id T) {
	t.Helper()
	s := fmt.Sprint(id)
	if back, err := once.ParseAs[T](s); err != nil || back != id {
		t.Fatalf("%T %s: ParseAs = %v, %v", id, s, back, err)
	}
	data, err := json.Marshal(id)
	if err != nil {
		t.Fatal(err)
	}
	var back T
	if err := json.Unmarshal(data, &back); err != nil || back != id {
		t.Fatalf("%T %s: JSON %s = %v, %v", id, s, data, back, err)
	}
	dv, err := any(id).(driver.Valuer).Value()
	if err != nil {
		t.Fatal(err)
	}
	back = T{}
	if err := any(&back).(sql.Scanner).Scan(dv); err != nil || back != id {
		t.Fatalf("%T %s: Scan(Value = %#v) = %v, %v", id, s, dv, back, err)
	}
}
