package once_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

func TestOptionsCheck(t *testing.T) {
	cases := []struct {
		opts once.Options
		want string // in the message; "" = valid
	}{
		{once.Options{}, ""},
		{once.Options{Prefix: "usr_", Format: once.Hex32, DBFormat: once.Raw, PersistPrefix: true, Mask: true, Nonce: nonce.Sortable}, ""},
		{once.Options{Prefix: `a"b\c`}, ""},
		{once.Options{Prefix: "us r_"}, "Prefix"},
		{once.Options{Prefix: "usr\t"}, "Prefix"},
		{once.Options{Prefix: "usré"}, "Prefix"},
		{once.Options{Prefix: "usr\x7f"}, "Prefix"},
		{once.Options{Format: once.Raw}, "Format raw"},
		{once.Options{Format: 42}, "Format"},
		{once.Options{DBFormat: 42}, "DBFormat"},
		{once.Options{Nonce: 9}, "Nonce"},
		{once.Options{PersistPrefix: true}, "PersistPrefix"},
		{once.Options{Prefix: "u_", PersistPrefix: true}, "PersistPrefix"},
		{once.Options{Prefix: "u_", PersistPrefix: true, DBFormat: once.Unsigned}, "PersistPrefix"},
		{once.Options{Mask: true, Nonce: nonce.Encrypted}, "Mask"},
	}
	for _, c := range cases {
		err := c.opts.Check()
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.opts, err)
			}
			continue
		}
		if !errors.Is(err, once.ErrConfig) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "once: ") {
			t.Errorf("%+v: err = %v, want ErrConfig naming %s", c.opts, err, c.want)
		}
		// Every operation reports it: never a panic, never a fallback.
		if _, err := once.OptionsParse(c.opts, "AAAAAAAAAAA"); !errors.Is(err, once.ErrConfig) {
			t.Errorf("%+v: Parse err = %v", c.opts, err)
		}
		if _, err := c.opts.AppendText(nil, once.FromUint64(1)); !errors.Is(err, once.ErrConfig) {
			t.Errorf("%+v: AppendText err = %v", c.opts, err)
		}
		if _, err := once.OptionsValue(c.opts, once.FromUint64(1)); !errors.Is(err, once.ErrConfig) {
			t.Errorf("%+v: Value err = %v", c.opts, err)
		}
		if _, err := once.OptionsScan(c.opts, int64(1)); !errors.Is(err, once.ErrConfig) {
			t.Errorf("%+v: Scan err = %v", c.opts, err)
		}
		if _, err := c.opts.New(); !errors.Is(err, once.ErrConfig) {
			t.Errorf("%+v: New err = %v", c.opts, err)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range []once.Format{0, once.URL64, once.Hex, once.Hex32, once.Signed, once.Unsigned, once.Raw} {
		got, err := once.ParseFormat(strings.ToUpper(f.String()))
		if err != nil || got != f {
			t.Errorf("ParseFormat(%s) = %v, %v", f, got, err)
		}
	}
	if _, err := once.ParseFormat("base64"); !errors.Is(err, once.ErrConfig) {
		t.Errorf("ParseFormat(base64) err = %v", err)
	}
	if once.Format(99).String() != "format(99)" {
		t.Error("String of enums")
	}
}

type (
	badPrefixSpec struct{}
	ptrSpec       struct{}
	fatSpec       struct{ _ int }
)

func (badPrefixSpec) Options() once.Options { return once.Options{Prefix: "bad prefix"} }
func (*ptrSpec) Options() once.Options      { return once.Options{} }
func (fatSpec) Options() once.Options       { return once.Options{} }

func TestTypedConfigErrors(t *testing.T) {
	type BadID = once.Typed[badPrefixSpec]
	err := once.Check(userSpec{}, OrgID{}, badPrefixSpec{}, BadID{}, &ptrSpec{}, fatSpec{}, once.ID{})
	if !errors.Is(err, once.ErrConfig) {
		t.Fatalf("Check: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"once_test.badPrefixSpec", "once.Typed[github.com/once-go/once/once_test.badPrefixSpec]",
		"*once_test.ptrSpec", "once_test.fatSpec", `Prefix "bad prefix" contains a space`} {
		if !strings.Contains(msg, want) {
			t.Errorf("Check message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "userSpec") || strings.Contains(msg, "orgSpec") {
		t.Errorf("valid kinds reported:\n%s", msg)
	}
	if err := once.Check(userSpec{}, UserID{}, OrgID{}, once.ID{}); err != nil {
		t.Errorf("Check of valid kinds: %v", err)
	}

	// A misconfigured type fails every operation with the same error.
	var b BadID
	checks := map[string]error{}
	_, checks["ParseAs"] = once.ParseAs[BadID]("bad prefixAAAAAAAAAAA")
	_, checks["AppendText"] = b.AppendText(nil)
	_, checks["MarshalText"] = b.MarshalText()
	_, checks["MarshalJSON"] = b.MarshalJSON()
	checks["UnmarshalJSON"] = b.UnmarshalJSON([]byte(`"x"`))
	checks["UnmarshalText"] = b.UnmarshalText([]byte(`x`))
	checks["Scan"] = b.Scan(int64(1))
	_, checks["Value"] = b.Value()
	_, checks["NewAs"] = once.NewAs[BadID]()
	for op, err := range checks {
		if !errors.Is(err, once.ErrConfig) || !strings.Contains(err.Error(), "badPrefixSpec") {
			t.Errorf("%s: %v", op, err)
		}
	}
	if s := b.String(); !strings.Contains(s, "Prefix") {
		t.Errorf("String of misconfigured type = %q", s)
	}

	// Pointer and non-zero-size kinds are rejected, never called on nil.
	if _, err := once.ParseAs[once.Typed[*ptrSpec]]("AAAAAAAAAAA"); !errors.Is(err, once.ErrConfig) {
		t.Errorf("pointer kind: %v", err)
	}
	if _, err := once.ParseAs[once.Typed[fatSpec]]("AAAAAAAAAAA"); !errors.Is(err, once.ErrConfig) {
		t.Errorf("non-zero-size kind: %v", err)
	}
	if _, err := once.ParseAs[once.Typed[once.Spec]]("AAAAAAAAAAA"); !errors.Is(err, once.ErrConfig) {
		t.Errorf("interface kind: %v", err)
	}
}

func TestTypedIDs(t *testing.T) {
	id := once.FromUint64(0x338f28264e079f31)
	u := UserID(id)
	o := OrgID(id)
	if u.String() != "usr_M48oJk4HnzE" || o.String() != "org_6e7ig9ie0ufj2" {
		t.Errorf("u=%s o=%s", u, o)
	}
	if once.ID(u) != id || once.ID(o) != once.ID(u) || u.Uint64() != id.Uint64() || u.Int64() != id.Int64() {
		t.Error("conversions")
	}
	if u.Options().Prefix != "usr_" || (UserID{}).Options() != (userSpec{}).Options() || !(UserID{}).IsZero() {
		t.Error("Options/IsZero")
	}
	// A UserID does not parse as an OrgID.
	if _, err := once.ParseAs[OrgID](u.String()); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("OrgID from %s: %v", u, err)
	}
	m := map[UserID]int{u: 1}
	if m[MustParseAsUser("usr_M48oJk4HnzE")] != 1 {
		t.Error("map key")
	}
}

func MustParseAsUser(s string) UserID { return once.MustParseAs[UserID](s) }

func TestMustParsePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"MustParse":   func() { once.MustParse("nope") },
		"MustParseAs": func() { once.MustParseAs[UserID]("AAAAAAAAAAA") },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestMaskWithoutGenerator(t *testing.T) {
	maskBinding.Set(nil)
	id := MaskedID(once.FromUint64(42))
	if _, err := id.MarshalJSON(); !errors.Is(err, once.ErrNoGenerator) {
		t.Errorf("MarshalJSON without generator: %v", err)
	}
	if _, err := once.ParseAs[MaskedID]("AAAAAAAAAAA"); !errors.Is(err, once.ErrNoGenerator) {
		t.Errorf("ParseAs without generator: %v", err)
	}
	if s := id.String(); !strings.Contains(s, "no generator") || strings.Contains(s, "AAAAAAAAAq") {
		t.Errorf("String without generator = %q (must not show the stored value)", s)
	}
	// A factory without key material: ErrNoGenerator and nonce.ErrNoKey.
	f, err := nonce.New(nonce.Config{Fixed: true})
	if err != nil {
		t.Fatal(err)
	}
	maskBinding.Set(f)
	defer maskBinding.Set(nil)
	if _, err := id.AppendText(nil); !errors.Is(err, once.ErrNoGenerator) || !errors.Is(err, nonce.ErrNoKey) {
		t.Errorf("AppendText with keyless factory: %v", err)
	}
	// The DB never sees masked values: Scan/Value work without a key.
	v, err := id.Value()
	if err != nil || v != int64(42) {
		t.Errorf("Value = %v, %v", v, err)
	}
}

// Decimal text is never read as a number by text formats: 11 digits are
// url64, as in Once.
func TestDecimalIsURL64(t *testing.T) {
	id, err := once.Parse("12345678900")
	if err != nil || id.Uint64() == 12345678900 || id.String() != "12345678900" {
		t.Errorf("Parse(12345678900) = %d, %v", id.Uint64(), err)
	}
	// ...and "12345678901" is url64 with non-zero spare bits.
	if _, err := once.Parse("12345678901"); err == nil || !strings.Contains(err.Error(), "spare bits") {
		t.Errorf("Parse(12345678901) = %v, want a spare-bits error", err)
	}
	for _, s := range []string{"123", "-1", "+1234567890"} {
		if _, err := once.Parse(s); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want ErrInvalid", s, err)
		}
	}
	// Integer formats read only decimals.
	if _, err := once.OptionsParse(once.Options{Format: once.Unsigned}, "M48oJk4HnzE"); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("unsigned format accepted url64: %v", err)
	}
	if _, err := once.OptionsParse(once.Options{Format: once.Unsigned}, "-1"); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("unsigned Parse(-1) = %v; want ErrInvalid (range [0, 2^64-1])", err)
	}
	if id, err := (once.Options{Format: once.Unsigned}).ParseAny("-1"); err != nil || id.Int64() != -1 {
		t.Errorf("unsigned ParseAny(-1) = %v, %v (range is [-2^63, 2^64-1])", id, err)
	}
}
