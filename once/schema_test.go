package once_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// schemaCase is an option set whose schema the tests check against its
// strict parser.
type schemaCase struct {
	opts    once.Options
	schema  once.Schema
	re      *regexp.Regexp
	samples []string // Format outputs
	seeds   []string // the samples TestSchemaPattern mutates
}

// schemaPrefixes: none, the usual kind, and one of every regular
// expression metacharacter a prefix may hold.
var schemaPrefixes = []string{"", "usr_", `a.b+c*d?e(f)g|h[i]j{k}l^m$n\o/p-q`}

// schemaCases returns every text format with each prefix, masked and not
// (masked under a Speck key), with their schemas compiled.
func schemaCases(t testing.TB) []schemaCase {
	t.Helper()
	b := once.Bind(keyFactory(t, testBaseKey, nonce.Speck))
	r := rand.New(rand.NewPCG(7, 11))
	var cases []schemaCase
	for _, f := range []once.Format{once.URL64, once.Hex, once.Hex32, once.Signed, once.Unsigned} {
		for _, p := range schemaPrefixes {
			for _, mask := range []bool{false, true} {
				o := once.Options{Prefix: p, Format: f, Mask: mask}
				if mask {
					o.Generator = b
				}
				s, err := o.Schema()
				if err != nil {
					t.Fatal(err)
				}
				re, err := regexp.Compile(s.Pattern)
				if err != nil {
					t.Fatalf("%v: pattern %q: %v", f, s.Pattern, err)
				}
				c := schemaCase{opts: o, schema: s, re: re}
				values := append([]uint64{}, edgeValues[1:]...)
				values = append(values, 1<<62, 1<<4, 10, 100, 1e18, 1e19, r.Uint64(), r.Uint64()>>40)
				if mask {
					// The stored values shown as 0, 1 and the largest value.
					key := b.Factory().Cipher64()
					values = append(values, key.Decrypt(0), key.Decrypt(1), key.Decrypt(1<<63), key.Decrypt(^uint64(0)))
				}
				for _, v := range values {
					c.samples = append(c.samples, spell(t, o, v))
					switch v {
					case 1, math.MaxInt64, 1 << 63, math.MaxUint64, 0x338f28264e079f31:
						c.seeds = append(c.seeds, spell(t, o, v))
					}
				}
				if mask {
					c.seeds = append(c.seeds, c.samples[len(c.samples)-4:]...)
				}
				if p == schemaPrefixes[2] {
					c.seeds = c.seeds[:1] // the escaping of the prefix, once
				}
				cases = append(cases, c)
			}
		}
	}
	return cases
}

// check reports whether the pattern of c accepts s exactly when the strict
// parser does. The one exception is masked: the spelling that unmasks to 0
// matches, and the parser rejects it as the zero ID.
func (c *schemaCase) check(t testing.TB, s string) {
	t.Helper()
	matched := c.re.MatchString(s)
	_, err := once.OptionsParse(c.opts, s)
	if err != nil && !errors.Is(err, once.ErrInvalid) {
		t.Fatalf("%s: parse %q: %v", c.name(), s, err)
	}
	if matched == (err == nil) {
		if matched && (len(s) < c.schema.MinLength || len(s) > c.schema.MaxLength) {
			t.Fatalf("%s: %q (length %d) accepted, outside minLength %d, maxLength %d",
				c.name(), s, len(s), c.schema.MinLength, c.schema.MaxLength)
		}
		return
	}
	if matched && c.opts.Mask {
		if id, lerr := c.opts.ParseAny(s); lerr == nil && id.IsZero() {
			return // the masked spelling of the zero ID
		}
	}
	t.Fatalf("%s: pattern %s %q, the strict parser %v", c.name(), map[bool]string{true: "accepts", false: "rejects"}[matched], s, err)
}

func (c *schemaCase) name() string {
	mask := ""
	if c.opts.Mask {
		mask = ", masked"
	}
	return c.opts.Format.String() + " prefix " + quoteGo(c.opts.Prefix) + mask
}

func quoteGo(s string) string { b, _ := json.Marshal(s); return string(b) }

// mutationBytes are what mutations put in a spelling: the digits of every
// format, both cases, signs, the neighbours of each range's ends, and
// bytes outside ASCII.
var mutationBytes = []byte("0123456789aefgpuvwxyzAEFGHPUVWXYZ-_+./:@[`{ \x00\x80\xff\\|($^")

// mutations returns s with one byte replaced, one byte removed, one byte
// inserted, its halves swapped and doubled, and a leading zero or sign.
func mutations(s string) []string {
	var out []string
	for i := 0; i <= len(s); i++ {
		for _, b := range mutationBytes {
			if i < len(s) {
				out = append(out, s[:i]+string(b)+s[i+1:])
			}
			out = append(out, s[:i]+string(b)+s[i:])
		}
		if i < len(s) {
			out = append(out, s[:i]+s[i+1:], s[:i]+strings.ToUpper(s[i:i+1])+s[i+1:])
		}
	}
	out = append(out, "", s+s, s[len(s)/2:]+s[:len(s)/2], "0"+s, "-"+s, "+"+s, s+"\n", " "+s)
	return out
}

// decimalEdges returns decimals around the ends of the int64 and uint64
// ranges: each prefix of a bound, then each digit, then 0s or 9s; with and
// without a sign; and runs of 9s and powers of ten of 17 to 21 digits.
func decimalEdges() []string {
	var out []string
	for _, bound := range []string{"18446744073709551615", "9223372036854775807", "9223372036854775808"} {
		for i := range len(bound) {
			for d := byte('0'); d <= '9'; d++ {
				for _, fill := range []string{"0", "9"} {
					s := bound[:i] + string(d) + strings.Repeat(fill, len(bound)-i-1)
					out = append(out, s, "-"+s)
				}
			}
		}
	}
	for n := 17; n <= 21; n++ {
		out = append(out, strings.Repeat("9", n), "1"+strings.Repeat("0", n-1), "-"+strings.Repeat("9", n))
	}
	return append(out, "0", "-0", "00", "-", "")
}

// TestSchemaPattern: for every format, prefix and mask, each pattern
// accepts every Format output and, on every mutation of those and every
// decimal near the range ends, agrees with the strict parser.
func TestSchemaPattern(t *testing.T) {
	n := 0
	for _, c := range schemaCases(t) {
		checkSyntax(t, c.schema.Pattern)
		for _, s := range c.samples {
			if !c.re.MatchString(s) {
				t.Fatalf("%s: pattern rejects the Format output %q", c.name(), s)
			}
			c.check(t, s)
		}
		for _, s := range c.seeds {
			for _, m := range mutations(s) {
				c.check(t, m)
				n++
			}
		}
		if c.opts.Format == once.Signed || c.opts.Format == once.Unsigned {
			for _, d := range decimalEdges() {
				c.check(t, c.opts.Prefix+d)
				n++
			}
		}
	}
	t.Logf("%d strings checked", n)
}

// TestSchemaLengths: the lengths are those of the shortest and longest
// Format outputs.
func TestSchemaLengths(t *testing.T) {
	for _, c := range schemaCases(t) {
		lo, hi := len(c.samples[0]), len(c.samples[0])
		for _, s := range c.samples {
			lo, hi = min(lo, len(s)), max(hi, len(s))
		}
		if lo != c.schema.MinLength || hi != c.schema.MaxLength {
			t.Errorf("%s: minLength %d, maxLength %d; Format outputs from %d to %d",
				c.name(), c.schema.MinLength, c.schema.MaxLength, lo, hi)
		}
		if !c.re.MatchString(c.schema.Example) {
			t.Errorf("%s: example %q does not match", c.name(), c.schema.Example)
		}
	}
}

// checkSyntax fails unless pattern keeps to what ECMA-262 (with or
// without the u flag) and RE2 read alike: ^ and $ around literals, classes,
// non-capturing groups, alternation and counted repetition, and a
// backslash only before a syntax character.
func checkSyntax(t testing.TB, pattern string) {
	t.Helper()
	if !strings.HasPrefix(pattern, "^") || !strings.HasSuffix(pattern, "$") {
		t.Fatalf("pattern %q is not anchored", pattern)
	}
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
			if i == len(pattern) || !strings.ContainsRune(`\.+*?()|[]{}^$/`, rune(pattern[i])) {
				t.Fatalf("pattern %q: escape at offset %d is not of a syntax character", pattern, i-1)
			}
		case '(':
			if !strings.HasPrefix(pattern[i:], "(?:") {
				t.Fatalf("pattern %q: group at offset %d is not (?:", pattern, i)
			}
		}
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpLiteral, syntax.OpCharClass, syntax.OpConcat, syntax.OpAlternate,
			syntax.OpRepeat, syntax.OpQuest, syntax.OpBeginText, syntax.OpEndText:
		default:
			t.Fatalf("pattern %q uses %v", pattern, r.Op)
		}
		if r.Flags&syntax.FoldCase != 0 {
			t.Fatalf("pattern %q folds case", pattern)
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
}

// TestSchemaDocument: the pattern of the README's masked user ID, the JSON
// document, SchemaOf for IDs and kinds, and the errors of invalid options.
func TestSchemaDocument(t *testing.T) {
	s, err := once.Options{Prefix: "usr_", Mask: true}.Schema()
	if err != nil {
		t.Fatal(err)
	}
	if want := `^usr_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$`; s.Pattern != want {
		t.Errorf("pattern %s, want %s", s.Pattern, want)
	}
	doc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"string","format":"once-id",` +
		`"description":"ID: \"usr_\" then 11 base64url characters, the last one of AEIMQUYcgkosw048 (masked)",` +
		`"pattern":"^usr_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$","minLength":15,"maxLength":15,` +
		`"examples":["usr_zAjhfZyAAAE"],"x-once-id":{"format":"url64","mask":true,"prefix":"usr_"}}`
	var got, exp any
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatal(err)
	}
	if g, _ := json.Marshal(got); string(g) != func() string { e, _ := json.Marshal(exp); return string(e) }() {
		t.Errorf("schema JSON\n%s\nwant\n%s", doc, want)
	}
	if ext := s.Extension(); ext["prefix"] != "usr_" || ext["format"] != "url64" || ext["mask"] != true {
		t.Errorf("Extension() = %v", ext)
	}

	for _, k := range []once.Spec{UserID{}, userSpec{}} {
		s, err := once.SchemaOf(k)
		want, _ := once.Options{Prefix: "usr_"}.Schema()
		if err != nil || s != want {
			t.Errorf("SchemaOf(%T) = %+v, %v; want %+v", k, s, err, want)
		}
	}
	if s, err := once.SchemaOf(once.ID{}); err != nil || s.Prefix != "" || s.Format != once.URL64 || s.Mask {
		t.Errorf("SchemaOf(ID{}) = %+v, %v", s, err)
	}

	for _, bad := range []struct {
		k    once.Spec
		want string
	}{
		{once.Typed[badSchemaSpec]{}, "Typed[github.com/once-go/once/once_test.badSchemaSpec]"},
		{badSchemaSpec{}, "badSchemaSpec"},
		{nil, "argument 0 is nil"},
	} {
		if _, err := once.SchemaOf(bad.k); !errors.Is(err, once.ErrConfig) || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "Format raw") && bad.k != nil {
			t.Errorf("SchemaOf(%T) err = %v, want ErrConfig naming %s", bad.k, err, bad.want)
		}
	}
	if _, err := (once.Options{Prefix: "a b"}).Schema(); !errors.Is(err, once.ErrConfig) {
		t.Errorf("Schema of a prefix with a space: err = %v", err)
	}
}

type badSchemaSpec struct{}

func (badSchemaSpec) Options() once.Options { return once.Options{Format: once.Raw} }

// FuzzSchemaPattern: on any string, every pattern agrees with its strict
// parser (see schemaCase.check).
func FuzzSchemaPattern(f *testing.F) {
	cases := schemaCases(f)
	for _, c := range cases {
		for _, s := range c.samples[:3] {
			f.Add(s)
		}
	}
	for _, d := range decimalEdges()[:20] {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := range cases {
			cases[i].check(t, s)
			if p := cases[i].opts.Prefix; p != "" && !strings.HasPrefix(s, p) {
				cases[i].check(t, p+s)
			}
		}
	})
}

// validUTF8 drops the strings that a JSON document cannot carry.
func validUTF8(in []string) []string {
	out := in[:0:0]
	for _, s := range in {
		if utf8.ValidString(s) {
			out = append(out, s)
		}
	}
	return out
}
