package once_test

import (
	"database/sql/driver"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/once-go/once/once"
)

// dbFormats lists every DB format with and without a persisted prefix.
var dbFormats = []once.Options{
	{DBFormat: once.Signed},
	{DBFormat: once.Unsigned},
	{DBFormat: once.Raw},
	{DBFormat: once.URL64},
	{DBFormat: once.Hex},
	{DBFormat: once.Hex32},
	{Prefix: "usr_", DBFormat: once.Signed},
	{Prefix: "usr_", DBFormat: once.Raw, PersistPrefix: true},
	{Prefix: "usr_", DBFormat: once.URL64, PersistPrefix: true},
	{Prefix: "usr_", DBFormat: once.Hex, PersistPrefix: true},
	{Prefix: "usr_", DBFormat: once.Hex32, PersistPrefix: true},
}

var edgeValues = []uint64{0, 1, 255, 256, math.MaxInt64 - 1, math.MaxInt64, 1 << 63, 1<<63 + 1, math.MaxUint64 - 1, math.MaxUint64, 0x338f28264e079f31}

func TestValueScanRoundTrip(t *testing.T) {
	for _, opts := range dbFormats {
		for _, v := range edgeValues[1:] { // 0 has no database value (TestZeroDatabase)
			id := once.FromUint64(v)
			dv, err := once.OptionsValue(opts, id)
			if err != nil {
				t.Fatalf("%+v Value(%d): %v", opts, v, err)
			}
			if !driver.IsValue(dv) {
				t.Errorf("%+v Value(%d) = %T, not a driver.Value", opts, v, dv)
			}
			if i, ok := dv.(int64); ok && opts.DBFormat == once.Unsigned && i < 0 {
				t.Errorf("unsigned Value(%d) = negative int64 %d", v, i)
			}
			forms := []any{dv}
			switch x := dv.(type) { // what other drivers return for the same column
			case int64:
				forms = append(forms, []byte(itoa(x)), itoa(x))
				if x >= 0 {
					forms = append(forms, uint64(x))
				}
			case string:
				forms = append(forms, []byte(x))
			case []byte:
				forms = append(forms, string(x))
			}
			for _, src := range forms {
				got, err := once.OptionsScan(opts, src)
				if err != nil || got != id {
					t.Errorf("%+v Scan(%T %v) = %d, %v; want %d", opts, src, src, got.Uint64(), err, v)
				}
			}
		}
	}
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

func TestScanStrict(t *testing.T) {
	cases := []struct {
		opts once.Options
		src  any
	}{
		{once.Options{}, nil},
		{once.Options{}, 1.5},
		{once.Options{}, time.Now()},
		{once.Options{}, true},
		{once.Options{}, uint64(1 << 63)},
		{once.Options{}, "9223372036854775808"},
		{once.Options{}, []byte("18446744073709551615")},
		{once.Options{}, []byte("12a")},
		{once.Options{}, ""},
		{once.Options{}, []byte("AAAAAAAAAAA")},
		{once.Options{DBFormat: once.Unsigned}, int64(-1)},
		{once.Options{DBFormat: once.Unsigned}, "-1"},
		{once.Options{DBFormat: once.Unsigned}, []byte("18446744073709551616")},
		{once.Options{DBFormat: once.Raw}, []byte{1, 2, 3, 4, 5, 6, 7}},
		{once.Options{DBFormat: once.Raw}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{once.Options{DBFormat: once.Raw}, int64(5)},
		{once.Options{Prefix: "usr_", DBFormat: once.Raw, PersistPrefix: true}, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{once.Options{Prefix: "usr_", DBFormat: once.Raw, PersistPrefix: true}, []byte("org_12345678")},
		{once.Options{DBFormat: once.Hex}, "M48oJk4HnzE"},        // url64 text in a hex column
		{once.Options{DBFormat: once.URL64}, "338f28264e079f31"}, // hex text in a url64 column
		{once.Options{DBFormat: once.URL64}, "AAAAAAAAAAB"},      // spare bits
		{once.Options{DBFormat: once.Hex32}, "0000000000001"},    // spare bit
		{once.Options{DBFormat: once.Hex32}, int64(1)},
		{once.Options{Prefix: "usr_", DBFormat: once.URL64}, "usr_M48oJk4HnzE"}, // prefix not persisted
		{once.Options{Prefix: "usr_", DBFormat: once.URL64, PersistPrefix: true}, "M48oJk4HnzE"},
		{once.Options{Prefix: "usr_", DBFormat: once.URL64, PersistPrefix: true, Mask: true}, nil},
	}
	for _, c := range cases {
		if id, err := once.OptionsScan(c.opts, c.src); !errors.Is(err, once.ErrInvalid) || !id.IsZero() {
			t.Errorf("%+v Scan(%T %v) = %v, %v; want ErrInvalid", c.opts, c.src, c.src, id, err)
		}
	}
	// Text columns hold the canonical lowercase spelling that Value writes.
	for _, c := range []struct {
		opts once.Options
		src  string
	}{{once.Options{DBFormat: once.Hex}, "338F28264E079F31"}, {once.Options{DBFormat: once.Hex32}, "6E7IG9IE0UFJ2"}} {
		if id, err := once.OptionsScan(c.opts, c.src); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("Scan(%q) = %v, %v; want ErrInvalid", c.src, id, err)
		}
	}
}

func TestScanValueMethods(t *testing.T) {
	var id once.ID
	if err := id.Scan(int64(-1)); err != nil || id.Uint64() != math.MaxUint64 {
		t.Errorf("Scan(-1) = %v, %v", id, err)
	}
	if err := id.Scan([]byte("-2")); err != nil || id.Int64() != -2 {
		t.Errorf("Scan(\"-2\") = %v, %v", id, err)
	}
	if err := id.Scan(nil); !errors.Is(err, once.ErrInvalid) || id.Int64() != -2 {
		t.Errorf("Scan(nil) = %v (id %v: must be unchanged)", err, id)
	}
	if v, err := id.Value(); v != int64(-2) || err != nil {
		t.Errorf("Value = %v, %v", v, err)
	}
	var u once.Typed[unsignedDB]
	if err := u.Scan([]byte("18446744073709551615")); err != nil || u.Uint64() != math.MaxUint64 {
		t.Errorf("unsigned Scan = %v, %v", u, err)
	}
	if v, err := u.Value(); v != "18446744073709551615" || err != nil {
		t.Errorf("unsigned Value = %#v, %v", v, err)
	}
	// A nil *T is NULL: Value sits on the value receiver.
	var p *UserID
	if _, ok := any(p).(driver.Valuer); !ok {
		t.Error("*UserID is not a Valuer")
	}
}
