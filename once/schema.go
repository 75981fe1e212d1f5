package once

import (
	"encoding/json"
	"strconv"
	"strings"
)

// SchemaFormat is the "format" of the JSON Schema of every ID type
// ([Schema]). Validators ignore formats they do not know; code generators
// and documentation tools can key on it.
const SchemaFormat = "once-id"

// SchemaExtension is the extension keyword of the JSON Schema of an ID type
// that carries its prefix, format and mask ([Schema.Extension]), so that
// tools need not take the pattern apart.
const SchemaExtension = "x-once-id"

// Schema describes the text spelling of an ID type (and its JSON string) as
// a JSON Schema: type string, a pattern, lengths, an example, the format
// [SchemaFormat] and the extension [SchemaExtension]. Its MarshalJSON writes
// that schema; adapters copy the fields into their framework's schema type.
//
// The pattern accepts exactly the spellings that the type's parsers
// ([ParseAs], UnmarshalText, UnmarshalJSON) accept, so a client generated
// from it sends no ID the server rejects and rejects what the server would:
// the exact prefix, then the canonical spelling in the type's Format (url64
// with zero spare bits, lowercase hex and hex32, decimal without '+' or
// leading zeros and in range). Unmasked, the spelling of 0 is excluded (0 is
// the zero ID, "no ID", spelled ""). Masked, every 64-bit value is shown by
// some ID, so the pattern accepts all of them; the server still rejects
// the one spelling that unmasks to 0, which the pattern cannot exclude
// without the key.
//
// The pattern is anchored (^...$) and keeps to the syntax that ECMA-262
// (JSON Schema, OpenAPI, browsers) and RE2 (Go's regexp) read alike:
// literals, escaped metacharacters, character classes with ranges,
// non-capturing groups, alternation and counted repetition.
type Schema struct {
	Prefix string // the type's prefix, "" for none
	Format Format // the text format (URL64 when the options leave it zero)
	Mask   bool   // the type masks its IDs
	// Generations is the number of key generations whose prefixes the
	// pattern accepts: more than 1 for a masked type whose binding holds
	// a [Keyring] of several generations (generation g >= 2 is spelled
	// with [GenerationPrefix]), else 1.
	Generations int

	Pattern   string // anchored regular expression of the spellings
	MinLength int    // in bytes (= characters: spellings are ASCII)
	MaxLength int
	// Example is the spelling of a fixed non-zero value (for a masked type,
	// a spelling that some ID has).
	Example string
	// Description says in words what Pattern says exactly.
	Description string
}

// exampleValue is the value the examples spell (the spec's sample ID).
const exampleValue = 14702248913163780097

// Schema returns the JSON Schema of the text spelling of IDs with options
// o, or an [ErrConfig] error naming the invalid option. It needs no
// generator, also for masked options.
func (o Options) Schema() (Schema, error) {
	c, err := o.resolve()
	if err != nil {
		return Schema{}, err
	}
	return c.schema(), nil
}

// A masked type whose binding holds a [Keyring] of several generations
// reads every generation's prefix ("usr_", "usr2_", ...), and its pattern
// accepts each of them: the schema describes the keyring bound when it is
// made, so build schemas after binding the keyring, and again after adding
// a generation.

// SchemaOf returns the JSON Schema of the text spelling of an ID type,
// given an ID of the type (UserID{}) or its spec (userSpec{}). Invalid
// options are an [ErrConfig] error naming the type, as [Check] reports them.
func SchemaOf(s Spec) (Schema, error) {
	if err := Check(s); err != nil {
		return Schema{}, err
	}
	return s.Options().Schema()
}

// schema builds the Schema of a valid codec.
func (c *codec) schema() Schema {
	s := Schema{Prefix: c.prefix, Format: c.format, Mask: c.mask}
	var body, words, zero string // zero: the digit 0 of an encoding
	switch c.format {
	case URL64:
		zero = "A"
		body = encodedPattern(11, zero, "[A-Za-z0-9_-]", "[B-Za-z0-9_-]", "[AEIMQUYcgkosw048]", "[EIMQUYcgkosw048]", c.mask)
		words = "11 base64url characters, the last one of AEIMQUYcgkosw048"
		s.MinLength, s.MaxLength = 11, 11
	case Hex:
		zero = "0"
		body = encodedPattern(16, zero, "[0-9a-f]", "[1-9a-f]", "[0-9a-f]", "[1-9a-f]", c.mask)
		words = "16 lowercase hex digits"
		s.MinLength, s.MaxLength = 16, 16
	case Hex32:
		zero = "0"
		body = encodedPattern(13, zero, "[0-9a-v]", "[1-9a-v]", "[02468acegikmoqsu]", "[2468acegikmoqsu]", c.mask)
		words = "13 lowercase base32hex characters, the last one of 02468acegikmoqsu"
		s.MinLength, s.MaxLength = 13, 13
	case Signed:
		// 1 to 18 digits are all in range; 19 digits up to 2^63-1, and
		// -2^63 on its own.
		body = "-?(?:[1-9][0-9]{0,17}|" + decimalUpTo("9223372036854775807", '1') + ")|-9223372036854775808"
		words = "a decimal int64 without '+' or leading zeros"
		s.MinLength, s.MaxLength = 1, 20
	case Unsigned:
		// 1 to 19 digits are all in range; 20 digits up to 2^64-1.
		body = "[1-9][0-9]{0,18}|" + decimalUpTo("18446744073709551615", '1')
		words = "a decimal uint64 without '+' or leading zeros"
		s.MinLength, s.MaxLength = 1, 20
	}
	switch {
	case c.mask && c.format.isInteger():
		body = "0|" + body // the shown value 0 is some stored value's
	case c.mask:
	case c.format.isInteger():
		words += ", not 0"
	default:
		words += ", not all " + zero
	}
	if strings.Contains(body, "|") {
		body = "(?:" + body + ")"
	}
	s.Generations = 1
	prefix, example := quoteMeta(c.prefix), c.prefix
	var r *Keyring
	if c.mask && c.rotatable {
		r = c.gen.Keyring()
	}
	if r != nil && len(r.keys) > 1 {
		// Every generation's prefix: the stem, the generation's digits
		// (none for generation 1), the separator.
		var gens strings.Builder
		for _, k := range r.keys[1:] {
			if gens.Len() > 0 {
				gens.WriteByte('|')
			}
			gens.WriteString(k.digits)
		}
		prefix = quoteMeta(c.stem) + "(?:" + gens.String() + ")?" + quoteMeta(string(c.sep))
		example = c.stem + r.cur.digits + string(c.sep)
		s.Generations = len(r.keys)
		s.MaxLength += len(r.keys[len(r.keys)-1].digits)
	}
	s.Pattern = "^" + prefix + body + "$"
	s.MinLength += len(c.prefix)
	s.MaxLength += len(c.prefix)
	s.Example = string(appendFormat([]byte(example), c.format, exampleValue))
	s.Description = "ID: " + words
	if c.prefix != "" {
		s.Description = "ID: " + strconv.Quote(c.prefix) + " then " + words
	}
	if s.Generations > 1 {
		s.Description = "ID: " + strconv.Quote(c.prefix) + " (key generation 1) or " + strconv.Quote(c.stem+"2"+string(c.sep)) +
			" to " + strconv.Quote(c.stem+r.keys[len(r.keys)-1].digits+string(c.sep)) + " (generations 2 to " +
			strconv.Itoa(len(r.keys)) + ") then " + words
	}
	if c.mask {
		s.Description += " (masked)"
	}
	return s
}

// encodedPattern matches n characters of a fixed-length encoding: n-1 of
// class all and a last one of class last (whose spare bits are zero). Unless
// masked, it excludes the spelling of 0 (n zero digits): some character is
// not zero, so the alternatives are "k zero digits, then a non-zero one
// (nonZero, or lastNonZero at the end), then anything".
func encodedPattern(n int, zero, all, nonZero, last, lastNonZero string, masked bool) string {
	if masked {
		return repeat(all, n-1) + last
	}
	var b strings.Builder
	b.WriteString("(?:")
	for k := 0; k < n-1; k++ {
		if k > 0 {
			b.WriteByte('|')
		}
		b.WriteString(repeat(zero, k) + nonZero + repeat(all, n-2-k))
	}
	b.WriteString(")" + last + "|" + repeat(zero, n-1) + lastNonZero)
	return b.String()
}

// decimalUpTo matches the decimals of len(max) digits from first000...
// through max: per digit position, a smaller digit than max's followed by
// any digits, or max's digit followed by the rest of the range.
func decimalUpTo(max string, first byte) string {
	d := max[0]
	if len(max) == 1 {
		return digitClass(first, d)
	}
	rest := string(d) + decimalUpTo(max[1:], '0')
	if d == first {
		return rest
	}
	return "(?:" + digitClass(first, d-1) + repeat("[0-9]", len(max)-1) + "|" + rest + ")"
}

// digitClass matches one digit from lo through hi.
func digitClass(lo, hi byte) string {
	switch {
	case lo == hi:
		return string(lo)
	case hi == lo+1:
		return "[" + string(lo) + string(hi) + "]"
	}
	return "[" + string(lo) + "-" + string(hi) + "]"
}

// repeat matches x k times.
func repeat(x string, k int) string {
	switch k {
	case 0:
		return ""
	case 1:
		return x
	}
	return x + "{" + strconv.Itoa(k) + "}"
}

// quoteMeta escapes the regular expression metacharacters of a prefix
// (printable ASCII without spaces) with a backslash. ECMA-262 with and
// without the u flag and RE2 all read these escapes as the character.
func quoteMeta(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`\.+*?()|[]{}^$/`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Extension returns the value of the [SchemaExtension] keyword:
// {"prefix": "usr_", "format": "url64", "mask": true}, and "generations"
// when the type reads more than one key generation.
func (s Schema) Extension() map[string]any {
	m := map[string]any{"prefix": s.Prefix, "format": s.Format.String(), "mask": s.Mask}
	if s.Generations > 1 {
		m["generations"] = s.Generations
	}
	return m
}

// MarshalJSON writes the JSON Schema (draft 2020-12, as OpenAPI 3.1 uses
// it; OpenAPI 3.0 reads it too, but for "examples", which it spells
// "example").
func (s Schema) MarshalJSON() ([]byte, error) {
	type ext struct {
		Prefix      string `json:"prefix"`
		Format      string `json:"format"`
		Mask        bool   `json:"mask"`
		Generations int    `json:"generations,omitempty"`
	}
	gens := s.Generations
	if gens <= 1 {
		gens = 0
	}
	var examples []string
	if s.Example != "" {
		examples = []string{s.Example}
	}
	return json.Marshal(struct {
		Type        string   `json:"type"`
		Format      string   `json:"format"`
		Description string   `json:"description,omitempty"`
		Pattern     string   `json:"pattern"`
		MinLength   int      `json:"minLength"`
		MaxLength   int      `json:"maxLength"`
		Examples    []string `json:"examples,omitempty"`
		Ext         ext      `json:"x-once-id"`
	}{"string", SchemaFormat, s.Description, s.Pattern, s.MinLength, s.MaxLength,
		examples, ext{s.Prefix, s.Format.String(), s.Mask, gens}})
}
