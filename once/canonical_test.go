package once_test

import (
	"errors"
	"testing"

	"github.com/once-go/once/once"
)

type (
	hexSpec      struct{}
	hex32Spec    struct{}
	unsignedSpec struct{}
)

func (hexSpec) Options() once.Options      { return once.Options{Format: once.Hex} }
func (hex32Spec) Options() once.Options    { return once.Options{Format: once.Hex32} }
func (unsignedSpec) Options() once.Options { return once.Options{Format: once.Unsigned} }

// TestOneSpelling: every ID type parses only its own canonical spelling, in
// ParseAs, Parse, UnmarshalText and UnmarshalJSON; the canonical one parses.
func TestOneSpelling(t *testing.T) {
	const v = 0xcc08e17d9c800001 // zAjhfZyAAAE, cc08e17d9c800001, pg4e2vcsg0002
	cases := []struct {
		parse     func(string) (uint64, error)
		unmarshal func([]byte) error
		json      func([]byte) error
		good      string
		bad       []string
	}{
		{parseWith[once.ID], unmarshalWith[once.ID], jsonWith[once.ID], "zAjhfZyAAAE",
			[]string{"cc08e17d9c800001", "pg4e2vcsg0002", "CC08E17D9C800001"}},
		{parseWith[UserID], unmarshalWith[UserID], jsonWith[UserID], "usr_zAjhfZyAAAE",
			[]string{"usr_cc08e17d9c800001", "usr_pg4e2vcsg0002", "usr_CC08E17D9C800001", "usr_PG4E2VCSG0002"}},
		{parseWith[once.Typed[hexSpec]], unmarshalWith[once.Typed[hexSpec]], jsonWith[once.Typed[hexSpec]], "cc08e17d9c800001",
			[]string{"CC08E17D9C800001", "Cc08e17d9c800001", "zAjhfZyAAAE", "pg4e2vcsg0002"}},
		{parseWith[once.Typed[hex32Spec]], unmarshalWith[once.Typed[hex32Spec]], jsonWith[once.Typed[hex32Spec]], "pg4e2vcsg0002",
			[]string{"PG4E2VCSG0002", "zAjhfZyAAAE", "cc08e17d9c800001"}},
		{parseWith[once.Typed[signedSpec]], unmarshalWith[once.Typed[signedSpec]], jsonWith[once.Typed[signedSpec]], "-3744495160545771519",
			[]string{"14702248913163780097", "-03744495160545771519"}},
		{parseWith[once.Typed[unsignedSpec]], unmarshalWith[once.Typed[unsignedSpec]], jsonWith[once.Typed[unsignedSpec]], "14702248913163780097",
			[]string{"-3744495160545771519", "+14702248913163780097", "014702248913163780097"}},
	}
	for _, c := range cases {
		if got, err := c.parse(c.good); err != nil || got != v {
			t.Errorf("parse(%q) = %x, %v; want %x", c.good, got, err, uint64(v))
		}
		for _, s := range c.bad {
			if got, err := c.parse(s); !errors.Is(err, once.ErrInvalid) {
				t.Errorf("parse(%q) = %x, %v; want ErrInvalid", s, got, err)
			}
			if err := c.unmarshal([]byte(s)); !errors.Is(err, once.ErrInvalid) {
				t.Errorf("UnmarshalText(%q) = %v; want ErrInvalid", s, err)
			}
			if err := c.json([]byte(`"` + s + `"`)); !errors.Is(err, once.ErrInvalid) {
				t.Errorf("UnmarshalJSON(%q) = %v; want ErrInvalid", s, err)
			}
		}
	}
	// Decimal spellings that are not canonical, small values.
	signed := []string{"+1", "01", "-0", "00", "9223372036854775808", "-9223372036854775809", "18446744073709551615"}
	unsigned := []string{"+1", "01", "-1", "-0", "18446744073709551616"}
	for _, s := range signed {
		if got, err := parseWith[once.Typed[signedSpec]](s); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("signed parse(%q) = %d, %v; want ErrInvalid", s, int64(got), err)
		}
	}
	for _, s := range unsigned {
		if got, err := parseWith[once.Typed[unsignedSpec]](s); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("unsigned parse(%q) = %d, %v; want ErrInvalid", s, got, err)
		}
	}
	for _, s := range []string{"1", "-1", "9223372036854775807", "-9223372036854775808"} {
		if id, err := once.ParseAs[once.Typed[signedSpec]](s); err != nil || id.String() != s {
			t.Errorf("signed parse(%q) = %v, %v", s, id, err)
		}
	}
	// JSON numbers for unprefixed decimal types follow the same rules.
	for _, s := range []string{"-0", "18446744073709551615", "9223372036854775808"} {
		if err := jsonWith[once.Typed[signedSpec]]([]byte(s)); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("signed UnmarshalJSON(%s) = %v; want ErrInvalid", s, err)
		}
	}
	if err := jsonWith[once.Typed[unsignedSpec]]([]byte("-1")); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("unsigned UnmarshalJSON(-1) = %v; want ErrInvalid", err)
	}
}

func parseWith[T once.IDType](s string) (uint64, error) {
	id, err := once.ParseAs[T](s)
	return once.ID(id).Uint64(), err
}

func unmarshalWith[T once.IDType](b []byte) error {
	var id T
	return any(&id).(interface{ UnmarshalText([]byte) error }).UnmarshalText(b)
}

func jsonWith[T once.IDType](b []byte) error {
	var id T
	return any(&id).(interface{ UnmarshalJSON([]byte) error }).UnmarshalJSON(b)
}

// TestCheckNil: Check reports nil and nil-pointer arguments as errors that
// name the argument, never panics.
func TestCheckNil(t *testing.T) {
	for name, k := range map[string]once.Spec{"nil": nil, "*ID": (*once.ID)(nil), "*UserID": (*UserID)(nil), "*userSpec": (*userSpec)(nil)} {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("Check(%s) panicked: %v", name, r)
				}
			}()
			err = once.Check(userSpec{}, k)
		}()
		if !errors.Is(err, once.ErrConfig) {
			t.Errorf("Check(%s) = %v; want ErrConfig", name, err)
		}
	}
}
