package once_test

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/once-go/once/once"
)

// TestGenerationPrefixEnds: a prefix carries a key generation when it has
// at least 2 bytes, no '"' or '\', and ends in a byte that is not a letter
// or digit; the bytes next to '0'-'9', 'a'-'z' and 'A'-'Z' are separators.
func TestGenerationPrefixEnds(t *testing.T) {
	for _, p := range []string{"u/", "u:", "u`", "u{", "u@", "u[", "u_", "usr-"} {
		want := p[:len(p)-1] + "2" + p[len(p)-1:]
		if got, err := once.GenerationPrefix(p, 2); err != nil || got != want {
			t.Errorf("GenerationPrefix(%q, 2) = %q, %v; want %q", p, got, err, want)
		}
	}
	for _, p := range []string{"_", "u0", "u9", "ua", "uz", "uA", "uZ", `u"_`, `u\_`} {
		if got, err := once.GenerationPrefix(p, 2); !errors.Is(err, once.ErrConfig) {
			t.Errorf("GenerationPrefix(%q, 2) = %q, %v; want ErrConfig", p, got, err)
		}
	}
}

type rotDouble struct{} // masked, prefix "ab__": the stem "ab_" ends in the separator

func (rotDouble) Options() once.Options {
	return once.Options{Prefix: "ab__", Mask: true, Generator: &rotBinding}
}

// TestGenerationSpellings: what the generation part of a spelling may be.
// Between the stem and the separator, a decimal from 2 with at most 4
// digits and no leading zero names a generation; one the keyring lacks is
// an ErrUnknownGeneration error that names it, anything else a plain
// ErrInvalid one.
func TestGenerationSpellings(t *testing.T) {
	keys := vectorKeys(t)
	defer rotBinding.SetKeyring(nil)
	rotBinding.SetKeyring(mustRing(t, 2, keys...))
	id := RotID(once.FromUint64(255514662584827904))
	body := id.String()[len("usr2_"):]
	cases := []struct {
		parse   func(string) error
		in      string
		unknown int // the generation an ErrUnknownGeneration names; 0: ErrInvalid only
	}{
		{parseRot, "usr", 0},
		{parseRot, "usr2", 0},
		{parseRot, "usr12", 0},
		{parseRot, "usr1_" + body, 0},
		{parseRot, "usr9_" + body, 9},
		{parseRot, "usr10_" + body, 10},
		{parseRot, "usr12_" + body, 12},
		{parseRot, "usr23_" + body, 23},
		{parseRot, "usr9999_" + body, 9999},
		{parseRot, "usr10000_" + body, 0},
		{parseRot, "usr:_" + body, 0},
		{parseRot, "abc_" + body, 0},
		{parseRot, "abc2_" + body, 0},
		{parseDouble, "ab_23_" + body, 23},
	}
	for _, c := range cases {
		checkGenErr(t, c.in, c.parse(c.in), c.unknown)
	}
	// The offset of a bad character counts the generation's digits.
	if _, err := once.ParseAs[RotID]("usr2_AAAAAAAAAA*"); err == nil || !strings.HasSuffix(err.Error(), "at offset 15") {
		t.Errorf(`ParseAs("usr2_AAAAAAAAAA*") = %v; want the '*' at offset 15`, err)
	}
	// The lenient parser reads the plain prefix as generation 1, then finds
	// nothing after it.
	if _, _, err := (rotSpec{}).Options().ParseAnyGeneration("usr_"); !errors.Is(err, once.ErrInvalid) || !strings.HasSuffix(err.Error(), ": length 0, want 11 (url64), 13 (hex32) or 16 (hex)") {
		t.Errorf(`ParseAnyGeneration("usr_") = %v; want length 0`, err)
	}

	// A keyring of one generation knows no generation 2.
	rotBinding.SetKeyring(mustRing(t, 1, keys[0]))
	checkGenErr(t, "usr2_"+body, parseRot("usr2_"+body), 2)
}

func parseRot(s string) error {
	_, err := once.ParseAs[RotID](s)
	return err
}

func parseDouble(s string) error {
	_, err := once.ParseAs[once.Typed[rotDouble]](s)
	return err
}

func checkGenErr(t *testing.T, in string, err error, unknown int) {
	t.Helper()
	if unknown == 0 {
		if !errors.Is(err, once.ErrInvalid) || errors.Is(err, once.ErrUnknownGeneration) {
			t.Errorf("ParseAs(%q) = %v; want ErrInvalid, not ErrUnknownGeneration", in, err)
		}
		return
	}
	if want := "key generation " + strconv.Itoa(unknown) + " is unknown"; !errors.Is(err, once.ErrUnknownGeneration) || !strings.Contains(err.Error(), want) {
		t.Errorf("ParseAs(%q) = %v; want ErrUnknownGeneration, %q", in, err, want)
	}
}

// TestGenerationTen: generations from 10 on are read by the general path
// (the written-out one reads 2 to 9); the byte after '9', ':', is no digit.
func TestGenerationTen(t *testing.T) {
	defer rotBinding.SetKeyring(nil)
	rotBinding.SetKeyring(mustRing(t, 10, rotationKeys(10)...))
	o := rotSpec{}.Options()
	id := once.FromUint64(255514662584827904)
	for _, g := range []int{9, 10} {
		b, err := o.AppendGeneration(nil, id, g)
		if err != nil {
			t.Fatal(err)
		}
		if back, gen, err := once.ParseGeneration[RotID](string(b)); err != nil || once.ID(back) != id || gen != g {
			t.Errorf("ParseGeneration(%q) = %v, %d, %v; want %v, %d", b, back, gen, err, id, g)
		}
		if g == 10 {
			colon := "usr:_" + string(b[len("usr10_"):])
			checkGenErr(t, colon, parseRot(colon), 0)
		}
	}
}

// TestGenerationDecimal: a masked decimal type with a keyring reads
// negative spellings, "0" (the stored value that masks to 0) and nothing
// that is not a decimal.
func TestGenerationDecimal(t *testing.T) {
	keys := vectorKeys(t)
	defer rotBinding.SetKeyring(nil)
	rotBinding.SetKeyring(mustRing(t, 2, keys...))
	type dec = once.Typed[rotDecSpec]
	neg := 0
	for v := uint64(1); v <= 64 && neg < 3; v++ {
		s := dec(once.FromUint64(v)).String()
		if !strings.HasPrefix(s, "ord2--") {
			continue
		}
		neg++
		if back, g, err := once.ParseGeneration[dec](s); err != nil || back.Uint64() != v || g != 2 {
			t.Errorf("ParseGeneration(%q) = %v, %d, %v; want %d", s, back, g, err, v)
		}
	}
	if neg == 0 {
		t.Fatal("no negative spelling among the first 64 values")
	}
	if id, err := once.ParseAs[dec]("ord2-0"); err != nil || id.IsZero() {
		t.Errorf(`ParseAs("ord2-0") = %v, %v; want the value that masks to 0`, id, err)
	}
	for _, s := range []string{"ord-x", "ord2-x", "ord2--", "ord2-+1"} {
		if id, err := once.ParseAs[dec](s); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("ParseAs(%q) = %v, %v; want ErrInvalid", s, id, err)
		}
	}
}

type (
	colUsr999  struct{}
	colUsr1000 struct{}
)

func (colUsr999) Options() once.Options  { return once.Options{Prefix: "usr999_"} }
func (colUsr1000) Options() once.Options { return once.Options{Prefix: "usr1000_"} }

// TestCheckLastGeneration: the generation-999 prefix (MaxGeneration) of a
// masked type is taken; "usr1000_" is no generation's.
func TestCheckLastGeneration(t *testing.T) {
	if err := once.Check(colUsr{}, colUsr999{}); !errors.Is(err, once.ErrConfig) || !strings.Contains(err.Error(), "generation 999") {
		t.Errorf("Check(usr_, usr999_) = %v; want the collision", err)
	}
	if err := once.Check(colUsr{}, colUsr1000{}); err != nil {
		t.Errorf("Check(usr_, usr1000_) = %v", err)
	}
}

// TestKeyringErrorsPlace: a keyring text error names its line (counting
// blank and comment lines) and the generation it wanted.
func TestKeyringErrorsPlace(t *testing.T) {
	_, err := once.ParseKeyring("# keys\n\n1 " + ringKey1 + "\n3 " + ringKey2)
	if want := `Keyring line 4: generation "3", want 2 `; !errors.Is(err, once.ErrConfig) || !strings.Contains(err.Error(), want) {
		t.Errorf("ParseKeyring = %v; want %q", err, want)
	}
}

// TestRotationSchemaFirstCurrent: with generation 1 current, the example
// has the plain prefix (generation 1 has no digits).
func TestRotationSchemaFirstCurrent(t *testing.T) {
	defer rotBinding.SetKeyring(nil)
	rotBinding.SetKeyring(mustRing(t, 1, vectorKeys(t)...))
	s, err := once.SchemaOf(RotID{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Example, "usr_") || !regexp.MustCompile(s.Pattern).MatchString(s.Example) {
		t.Errorf("example %q, pattern %s", s.Example, s.Pattern)
	}
	if _, ok := s.Extension()["generations"]; s.Generations != 2 || !ok {
		t.Errorf("generations %d, extension %v", s.Generations, s.Extension())
	}
	// A keyring of one generation: the schema of a type without keyring.
	rotBinding.SetKeyring(mustRing(t, 1, vectorKeys(t)[0]))
	one, err := once.SchemaOf(RotID{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := one.Extension()["generations"]; one.Pattern != `^usr_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$` || one.Generations != 1 || ok {
		t.Errorf("one generation: pattern %s, generations %d, extension %v", one.Pattern, one.Generations, one.Extension())
	}
}
