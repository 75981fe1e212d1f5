package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// idFlags are the flags that say how VALUEs are spelled and how to print
// them: --to, --prefix and --int.
type idFlags struct {
	to     string
	prefix string
	asInt  bool
	// stored: the VALUEs are stored values (mask): they may come without
	// the prefix, which the database does not hold; --prefix is the
	// output's, and VALUEs that carry it have it removed.
	stored bool
}

// addIDFlags registers --prefix, --to unless toUsage is empty, and --int
// unless the command takes no values.
func addIDFlags(fs *flagSet, toUsage string, values bool) *idFlags {
	f := new(idFlags)
	if toUsage != "" {
		fs.StringVar(&f.to, "to", "", toUsage)
	}
	if !values {
		fs.StringVar(&f.prefix, "prefix", "", "the prefix `P` put in front of every output value (e.g. usr_)")
		return f
	}
	fs.StringVar(&f.prefix, "prefix", "", "the prefix `P` of every VALUE (e.g. usr_), re-attached to the output; values without it are invalid")
	fs.BoolVar(&f.asInt, "int", false, "VALUEs are decimal integers (signed or unsigned); without it a run of digits is one too, unless it has 11, 13 or 16 characters (url64, hex32, hex)")
	return f
}

// input returns the parser of the VALUEs.
func (f *idFlags) input() (*valueParser, error) {
	o := once.Options{Prefix: f.prefix, Format: once.URL64}
	if err := o.Check(); err != nil {
		return nil, fmt.Errorf("--prefix %s: %s", quoteValue(f.prefix), trimOnce(err))
	}
	return &valueParser{opts: o, asInt: f.asInt, stored: f.stored}, nil
}

// valueParser parses VALUEs: with the prefix of opts (optional if stored),
// as a decimal integer with asInt or when the value is a run of digits of
// no text format's length, else as url64, hex32 or hex by length; masked
// if opts says so.
type valueParser struct {
	opts   once.Options // Prefix, Mask and Generator; Format is chosen per value
	asInt  bool
	stored bool
	ring   *once.Keyring // the keyring bound to opts.Generator, or nil
}

// parse parses one VALUE; an invalid one that carries a prefix the
// command was not given gets a hint naming --prefix.
func (p *valueParser) parse(v string) (once.ID, error) {
	id, err := p.parseAs(v, p.opts.Prefix)
	if err != nil && !errors.Is(err, once.ErrUnknownGeneration) {
		err = p.prefixHint(v, err)
	}
	return id, err
}

// parseAs parses v with prefix.
func (p *valueParser) parseAs(v, prefix string) (once.ID, error) {
	o := p.opts
	o.Prefix = prefix
	body, ok := strings.CutPrefix(v, prefix)
	if !ok && p.ring != nil {
		if g := p.generationOf(v, prefix); g > 1 {
			gp, _ := once.GenerationPrefix(prefix, g)
			body, ok = v[len(gp):], true
		}
	}
	if !ok && p.stored {
		o.Prefix, body = "", v
	}
	if p.asInt || isDecimal(body) {
		o.Format = once.Signed // accepts the whole range [-2^63, 2^64-1]
	}
	return o.ParseAny(v)
}

// generationOf returns the key generation whose spelling of prefix v
// starts with: 1 for the prefix itself or when no keyring was given, g for
// the generation-g prefix of a generation the keyring holds ("usr2_" for
// "usr_" and 2), 0 for none of them.
func (p *valueParser) generationOf(v, prefix string) int {
	if p.ring != nil {
		for g := p.ring.Generations(); g > 1; g-- {
			if gp, err := once.GenerationPrefix(prefix, g); err == nil && strings.HasPrefix(v, gp) {
				return g
			}
		}
	}
	if strings.HasPrefix(v, prefix) {
		return 1
	}
	return 0
}

// basePrefix returns the generation-1 prefix of pre when a keyring was
// given and pre is the spelling of one of its later generations ("usr2_"
// for "usr_"), else pre: a word's prefix found in text names the type by
// its generation-1 prefix, and the generation by its digits.
func (p *valueParser) basePrefix(pre string) string {
	if p.ring == nil || len(pre) < 3 {
		return pre
	}
	i := len(pre) - 1
	for i > 0 && pre[i-1] >= '0' && pre[i-1] <= '9' {
		i--
	}
	if i == len(pre)-1 || i == 0 {
		return pre
	}
	base := pre[:i] + pre[len(pre)-1:]
	if g := p.generationOf(pre, base); g > 1 {
		if gp, _ := once.GenerationPrefix(base, g); gp == pre {
			return base
		}
	}
	return pre
}

// isDecimal reports whether s is a decimal integer (an optional sign, then
// digits) whose length is no text format's: 11 (url64), 13 (hex32) and 16
// (hex) characters are read as those formats, whose alphabets have the
// digits too.
func isDecimal(s string) bool {
	switch len(s) {
	case 0, 11, 13, 16:
		return false
	}
	if s[0] == '-' || s[0] == '+' {
		s = s[1:]
	}
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// maxPrefix is the longest prefix prefixHint looks for.
const maxPrefix = 32

// prefixHint returns the error for an invalid VALUE v that is a valid one
// after a prefix other than --prefix ("usr_TB-HV2DjORY" without --prefix):
// it names that prefix and the flag. Otherwise it returns err.
func (p *valueParser) prefixHint(v string, err error) error {
	for i := 0; i < len(v) && i < maxPrefix; i++ {
		if v[i] != '_' {
			continue
		}
		pre := p.basePrefix(v[:i+1])
		if pre == p.opts.Prefix || (once.Options{Prefix: pre}).Check() != nil {
			continue
		}
		if _, perr := p.parseAs(v, pre); perr != nil {
			continue
		}
		if p.opts.Prefix == "" {
			return fmt.Errorf("%s has the prefix %s: give --prefix %s", quoteValue(v), quoteValue(pre), pre)
		}
		return fmt.Errorf("%s has the prefix %s, not --prefix %s", quoteValue(v), quoteValue(pre), quoteValue(p.opts.Prefix))
	}
	return err
}

// output returns the options that print the results: --to and --prefix.
// def is the format when --to is not given; empty means --to is required.
func (f *idFlags) output(def string) (once.Options, error) {
	name := f.to
	if name == "" {
		name = def
	}
	if name == "" {
		return once.Options{}, errors.New("--to FORMAT is required (url64, hex, hex32, signed or unsigned)")
	}
	ft, err := parseTextFormat(name)
	if err != nil {
		return once.Options{}, err
	}
	return once.Options{Prefix: f.prefix, Format: ft}, nil
}

// parseTextFormat parses a text format name for --to.
func parseTextFormat(name string) (once.Format, error) {
	ft, err := once.ParseFormat(name)
	if err != nil || ft == 0 || ft == once.Raw {
		return 0, fmt.Errorf("--to %s: unknown format (want url64, hex, hex32, signed or unsigned)", quoteValue(name))
	}
	return ft, nil
}

// keyFlags are the flags of the masking key: --cipher and the base key as
// --key-hex or --key-env, or the masking keys of several key generations
// as --keyring-env or --keyring-file (when the command registers them).
type keyFlags struct {
	fs       *flagSet
	cipher   string
	keyHex   string
	keyEnv   string
	ringEnv  string
	ringFile string
}

func addKeyFlags(fs *flagSet, what string) *keyFlags {
	k := &keyFlags{fs: fs}
	fs.StringVar(&k.cipher, "cipher", "blowfish", "the 64-bit block `cipher` "+what+": blowfish, speck or des3")
	fs.StringVar(&k.keyHex, "key-hex", "", "the base key as `HEX` digits spelling its raw bytes (at least 32 bytes); visible to other users in the process list, prefer --key-env")
	fs.StringVar(&k.keyEnv, "key-env", "", "read the base key from the environment variable `NAME` (e.g. ONCE_KEY): its raw bytes as they are, not decoded, at least 32 (a key with a zero byte cannot be passed this way)")
	return k
}

// addKeyringFlags registers --keyring-env and --keyring-file: the keys of
// several key generations, one line per generation, as once.ParseKeyring
// reads them.
func (k *keyFlags) addKeyringFlags() {
	k.fs.StringVar(&k.ringEnv, "keyring-env", "", "the masking keys of all key generations, one line each, \"<generation> <key> [current]\" (docs/ids.md), in the variable `NAME` (ONCE_MASK_KEYS, say); instead of --key-env or --key-hex")
	k.fs.StringVar(&k.ringFile, "keyring-file", "", "the masking keys of all key generations in the file `PATH`, as --keyring-env reads them")
}

// hasRing reports whether a keyring flag was set.
func (k *keyFlags) hasRing() bool { return k.ringEnv != "" || k.ringFile != "" }

// keyring returns the keyring of --keyring-env or --keyring-file, or nil
// when neither was given. Its errors never contain key material.
func (k *keyFlags) keyring() (*once.Keyring, error) {
	switch {
	case !k.hasRing():
		return nil, nil
	case k.ringEnv != "" && k.ringFile != "":
		return nil, errors.New("give the keyring with --keyring-env or --keyring-file, not both")
	case k.given():
		return nil, errors.New("give the masking key with --key-env or --key-hex, or the keys of every generation with --keyring-env or --keyring-file, not both")
	case given(k.fs, "cipher"):
		return nil, errors.New("--cipher is for --key-env and --key-hex: a keyring names its cipher on a line \"cipher NAME\"")
	}
	var r *once.Keyring
	var err error
	if k.ringEnv != "" {
		if r, err = once.KeyringFromEnv(k.ringEnv); err != nil {
			return nil, fmt.Errorf("--keyring-env %s: %s", quoteValue(k.ringEnv), trimOnce(err))
		}
		return r, nil
	}
	if r, err = once.KeyringFromFile(k.ringFile); err != nil {
		return nil, fmt.Errorf("--keyring-file %s: %s", quoteValue(k.ringFile), trimOnce(err))
	}
	return r, nil
}

// masking returns the binding that masks VALUEs: the keyring's, or a
// factory's keyed with --key-env or --key-hex; ring is the keyring or nil.
func (k *keyFlags) masking() (b *once.Binding, ring *once.Keyring, err error) {
	if ring, err = k.keyring(); err != nil || ring != nil {
		b = new(once.Binding)
		b.SetKeyring(ring)
		return b, ring, err
	}
	fac, err := k.factory(0)
	if err != nil {
		return nil, nil, err
	}
	return once.Bind(fac), nil, nil
}

// given reports whether a key flag was set.
func (k *keyFlags) given() bool { return k.keyHex != "" || k.keyEnv != "" }

// baseKey returns the base key. Its errors never contain key material.
func (k *keyFlags) baseKey() ([]byte, error) {
	switch {
	case k.keyHex != "" && k.keyEnv != "":
		return nil, errors.New("give the base key with --key-hex or --key-env, not both")
	case k.keyHex != "":
		return decodeKeyHex(k.keyHex)
	case k.keyEnv != "":
		v, ok := os.LookupEnv(k.keyEnv)
		if !ok || v == "" {
			return nil, fmt.Errorf("--key-env %s: the variable is not set or empty", quoteValue(k.keyEnv))
		}
		return []byte(v), nil
	}
	return nil, errors.New("a base key is required: --key-hex HEX or --key-env NAME")
}

// decodeKeyHex decodes --key-hex without quoting any of it in errors
// (encoding/hex would name the offending character).
func decodeKeyHex(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("--key-hex: odd number of hex digits (%d)", len(s))
	}
	b := make([]byte, len(s)/2)
	for i := range b {
		hi, ok1 := unhex(s[2*i])
		lo, ok2 := unhex(s[2*i+1])
		if !ok1 || !ok2 {
			return nil, errors.New("--key-hex: not a hex string")
		}
		b[i] = hi<<4 | lo
	}
	return b, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseCipher64 accepts the 64-bit ciphers by name.
func parseCipher64(name string) (nonce.Cipher, error) {
	c, err := nonce.ParseCipher(name)
	if err != nil || (c != nonce.Blowfish && c != nonce.Speck && c != nonce.DES3) {
		return 0, fmt.Errorf("--cipher %s: unknown 64-bit cipher (want blowfish, speck or des3)", quoteValue(name))
	}
	return c, nil
}

// factory returns a nonce factory for machine ID id keyed with the base key
// (if one was given) under --cipher.
func (k *keyFlags) factory(id int) (*nonce.Factory, error) {
	c, err := parseCipher64(k.cipher)
	if err != nil {
		return nil, err
	}
	// Fixed: the command holds no lease (gen's IDs are for inspection and
	// tests). AllowDemoKey: it reads IDs made with any key, the public demo
	// keys of the examples included (docs/cli.md unmasks the quickstart's).
	cfg := nonce.Config{Fixed: true, MachineID: id, Cipher64: c, AllowDemoKey: true}
	if k.given() {
		if cfg.BaseKey, err = k.baseKey(); err != nil {
			return nil, err
		}
	}
	f, err := nonce.New(cfg)
	if err != nil && k.given() {
		return nil, errors.New(keyFlagName(k) + err.Error())
	}
	return f, err
}

// keyFlagName names the flag that gave the key, for error messages.
func keyFlagName(k *keyFlags) string {
	if k.keyEnv != "" {
		return "--key-env " + quoteValue(k.keyEnv) + ": "
	}
	return "--key-hex: "
}

// trimOnce drops the "once: " prefix of an error message.
func trimOnce(err error) string {
	return strings.TrimPrefix(err.Error(), "once: ")
}
