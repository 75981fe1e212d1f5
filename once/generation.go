package once

import (
	"strconv"
	"strings"
)

// Key generations in spellings. A masked type whose prefix ends in a
// separator (a byte that is neither a letter nor a digit, nor '"' or '\',
// and no '"' or '\' elsewhere in the prefix) can carry its key generation:
// generation 1 is spelled with the prefix as declared ("usr_"), generation
// g >= 2 with the decimal g inserted before the separator ("usr2_",
// "usr17_"). The separator is not a digit, so the byte after the stem tells
// generation 1 (the separator) from a later one (a digit 1-9), and the
// digits end at the separator: every spelling names one generation.

// genPrefixable reports whether a prefix can carry a key generation.
func genPrefixable(p string) bool {
	if len(p) < 2 || strings.ContainsAny(p, `"\`) {
		return false
	}
	c := p[len(p)-1]
	return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
}

// GenerationPrefix returns the prefix that spells masked IDs of key
// generation g under prefix p: p itself for generation 1, the decimal g
// before p's final separator for later ones ("usr_", 3: "usr3_"). It is an
// [ErrConfig] error when p cannot carry a generation (no final separator)
// and g is not 1, or g is not in 1..[MaxGeneration].
func GenerationPrefix(p string, g int) (string, error) {
	switch {
	case g < 1 || g > MaxGeneration:
		return "", configError("key generation " + strconv.Itoa(g) + " is not one of 1.." + strconv.Itoa(MaxGeneration))
	case g == 1:
		return p, nil
	case !genPrefixable(p):
		return "", noGenPrefix(p, g)
	}
	return p[:len(p)-1] + strconv.Itoa(g) + p[len(p)-1:], nil
}

// noGenPrefix is the error for formatting generation g under a prefix that
// cannot carry it.
func noGenPrefix(p string, g int) error {
	return configError("Prefix " + quote(p) + " cannot carry key generation " + strconv.Itoa(g) +
		": a masked type rotating its key needs a prefix ending in a separator such as '_'")
}

// cutGen splits a spelling in its generation and the rest after the
// prefix when s starts with stem, then a decimal generation g >= 2 of at
// most 4 digits without a leading zero, then sep; otherwise ok is false.
func cutGen[T text](c *codec, s T) (g int, rest T, ok bool) {
	n := len(c.stem)
	if len(s) <= n+1 || string(s[:n]) != c.stem || s[n] < '1' || s[n] > '9' {
		return 0, s, false
	}
	i := n
	for ; i < len(s) && i < n+4 && s[i] >= '0' && s[i] <= '9'; i++ {
		g = g*10 + int(s[i]-'0')
	}
	if i == len(s) || s[i] != c.sep || g < 2 {
		return 0, s, false
	}
	return g, s[i+1:], true
}

// cutRing finds the generation of s in keyring r and returns its key and
// the rest of s after the prefix.
func cutRing[T text](c *codec, r *Keyring, s T) (*ringKey, T, error) {
	p := c.prefix
	if len(s) >= len(p) && string(s[:len(p)]) == p {
		return &r.keys[0], s[len(p):], nil
	}
	if c.rotatable {
		if g, rest, ok := cutGen(c, s); ok {
			if k := r.key(g); k != nil {
				return k, rest, nil
			}
			return nil, s, unknownGeneration(string(s), g, r)
		}
	}
	return nil, s, explainText(c, string(s))
}

// parseRing is parseText for a masked type bound to keyring r: the prefix
// picks the generation, whose key unmasks the value.
func parseRing[T text](c *codec, r *Keyring, s T) (uint64, *ringKey, error) {
	var k *ringKey
	var rest T
	// The common spellings, written out: generation 1 and generations 2
	// to 9 of a rotatable prefix. cutRing reads every spelling.
	if n := len(c.stem); c.rotatable && len(s) > n+1 && string(s[:n]) == c.stem {
		if d := s[n]; d == c.sep {
			k, rest = &r.keys[0], s[n+1:]
		} else if d >= '2' && d <= '9' && s[n+1] == c.sep && int(d-'0') <= len(r.keys) {
			k, rest = &r.keys[d-'1'], s[n+2:]
		}
	}
	if k == nil {
		var err error
		if k, rest, err = cutRing(c, r, s); err != nil {
			return 0, nil, err
		}
	}
	var v uint64
	var ok bool
	switch c.format { // decodeCanonical, written out as in parseText
	case URL64:
		v, ok = decodeURL64(rest)
	case Hex:
		v, ok = decodeHex(hexDec, rest)
	case Hex32:
		v, ok = decodeHex32(hex32Dec, rest)
	default:
		v, ok = parseCanonical(rest, c.format == Signed)
		ok = ok || string(rest) == "0"
	}
	if !ok {
		return 0, nil, explainRest(c, string(s), string(rest))
	}
	if v = k.block.Decrypt(v); v == 0 {
		return 0, nil, zeroText(string(s))
	}
	return v, k, nil
}

// appendGen appends the spelling of the stored value v under generation k
// (any value, 0 included).
func (c *codec) appendGen(b []byte, k *ringKey, v uint64) ([]byte, error) {
	v = k.block.Encrypt(v)
	if k.gen == 1 {
		b = append(b, c.prefix...)
		return appendFormat(b, c.format, v), nil
	}
	if !c.rotatable {
		return b, noGenPrefix(c.prefix, k.gen)
	}
	b = append(b, c.stem...)
	b = append(b, k.digits...)
	b = append(b, c.sep)
	return appendFormat(b, c.format, v), nil
}

// explainRest builds the error for a spelling whose prefix (of any
// generation) was right and whose rest is not a canonical value.
func explainRest(c *codec, in, rest string) error {
	base := len(in) - len(rest)
	switch {
	case rest == "":
		return invalid("ID", in, "nothing after the prefix")
	case c.format.isInteger():
		return invalid("ID", in, explainCanonical(rest, c.format == Signed, base))
	}
	return invalid("ID", in, explainEncoded(c.format, rest, base, false))
}

// ParseGeneration parses s as [ParseAs] does and also returns the key
// generation that masked it: the one its prefix names (1 for the plain
// prefix, and for a masked type without a [Keyring]); 0 when T does not
// mask. A generation that the keyring does not hold is an
// [ErrUnknownGeneration] error.
func ParseGeneration[T IDType](s string) (T, int, error) {
	c := codecFor(typeKey[T]())
	v, g, err := c.parseGen(s)
	return T{v}, g, err
}

// parseGen parses s and returns the stored value and the generation.
func (c *codec) parseGen(s string) (uint64, int, error) {
	if c.err == nil && c.mask {
		if r := c.gen.Keyring(); r != nil {
			v, k, err := parseRing(c, r, s)
			if err != nil {
				return 0, 0, err
			}
			return v, k.gen, nil
		}
	}
	v, err := parseText(c, s)
	if err != nil || !c.mask {
		return v, 0, err
	}
	return v, 1, nil
}

// ParseAnyGeneration is [Options.ParseAny] that also returns the key
// generation of a masked o: the one the prefix names (1 without a
// [Keyring]); 0 when o does not mask.
func (o Options) ParseAnyGeneration(s string) (ID, int, error) {
	c, err := o.resolve()
	if err != nil {
		return ID{}, 0, err
	}
	if c.mask {
		if r := c.gen.Keyring(); r != nil {
			k, rest, err := cutRing(&c, r, s)
			if err != nil {
				return ID{}, 0, err
			}
			// The rest, read by an unmasked, unprefixed codec of o's format.
			plainC := codec{format: c.format, gen: c.gen}
			v, err := parseAny(&plainC, rest)
			if err != nil {
				base := len(s) - len(rest)
				if c.format.isInteger() {
					return ID{}, 0, invalid("ID", s, explainDecimal(rest, base))
				}
				return ID{}, 0, invalid("ID", s, explainEncoded(0, rest, base, true))
			}
			return ID{k.block.Decrypt(v)}, k.gen, nil
		}
	}
	v, err := parseAny(&c, s)
	if err != nil {
		return ID{}, 0, err
	}
	if c.mask {
		return ID{v}, 1, nil
	}
	return ID{v}, 0, nil
}

// AppendGeneration appends the spelling of id per o under key generation g
// of the keyring bound to o's Generator (see [Binding.SetKeyring]): what a
// masked type spelled while g was current. Tools converting old IDs need
// it; the ID types always format with the current generation. Errors:
// [ErrConfig] when o does not mask or has no keyring, [ErrUnknownGeneration]
// when the keyring has no generation g.
func (o Options) AppendGeneration(b []byte, id ID, g int) ([]byte, error) {
	c, err := o.resolve()
	if err != nil {
		return b, err
	}
	r := c.gen.Keyring()
	if !c.mask || r == nil {
		return b, configError("AppendGeneration needs Mask and a Keyring bound to the Generator")
	}
	k := r.key(g)
	if k == nil {
		return b, &idError{kind: ErrUnknownGeneration, msg: "once: key generation " + strconv.Itoa(g) +
			" is unknown: the keyring holds generations 1 to " + strconv.Itoa(len(r.keys))}
	}
	return c.appendGen(b, k, id.v)
}

// checkGenerations reports the prefixes of opts that one of the generation
// spellings of a masked, rotatable other one would take: a prefix equal to
// another type's generation-g prefix, or two types whose generation
// prefixes meet. names name the types in messages.
func checkGenerations(opts []Options, names []string) []error {
	type entry struct {
		c    codec
		name string
	}
	var es []entry
	for i, o := range opts {
		if c, err := o.resolve(); err == nil && c.prefix != "" {
			es = append(es, entry{c, names[i]})
		}
	}
	var errs []error
	for i := range es {
		for j := range es {
			a, b := &es[i], &es[j]
			if i == j || a.c.prefix == b.c.prefix || !a.c.mask || !a.c.rotatable {
				continue
			}
			// b's prefix is one of a's generation spellings.
			if b.c.prefix[len(b.c.prefix)-1] == a.c.sep && strings.HasPrefix(b.c.prefix, a.c.stem) {
				if g, rest, ok := cutGen(&a.c, b.c.prefix); ok && rest == "" && g <= MaxGeneration {
					errs = append(errs, configError("Prefix "+quote(b.c.prefix)+" of "+b.name+
						" is the key generation "+strconv.Itoa(g)+" prefix of "+a.name+" (Prefix "+quote(a.c.prefix)+", masked)"))
					continue
				}
			}
			// Both rotate, and a's stem followed by digits is b's stem:
			// a's generation "xy" is b's generation "y".
			if b.c.mask && b.c.rotatable && a.c.sep == b.c.sep {
				if x, ok := strings.CutPrefix(b.c.stem, a.c.stem); ok && x != "" && x[0] != '0' && strings.Trim(x, "0123456789") == "" {
					errs = append(errs, configError("Prefix "+quote(a.c.prefix)+" of "+a.name+" and Prefix "+quote(b.c.prefix)+
						" of "+b.name+" (both masked) share generation prefixes such as "+quote(a.c.stem+x+"2"+string(a.c.sep))))
				}
			}
		}
	}
	return errs
}

// checkRotated reports a masked type whose prefix cannot carry a key
// generation while its binding's keyring formats with a generation other
// than 1.
func checkRotated(o Options) error {
	c, err := o.resolve()
	if err != nil || !c.mask || c.rotatable {
		return err
	}
	if r := c.gen.Keyring(); r != nil && r.cur.gen != 1 {
		return noGenPrefix(c.prefix, r.cur.gen)
	}
	return nil
}
