package once

import (
	"encoding/hex"
	"os"
	"strconv"
	"strings"

	"github.com/once-go/once/nonce"
)

// MaxGeneration is the highest key generation a [Keyring] holds.
const MaxGeneration = 999

// A Keyring holds the masking keys of ID types, one per key generation:
// generation 1 is the first key (the one whose spellings carry the plain
// prefix, as before any rotation), and every later generation has its own
// prefix spelling ("usr_" for generation 1, "usr2_" for 2, "usr3_" for 3:
// the generation number before the prefix's final separator). Formatting
// uses the current generation; parsing picks the generation that the prefix
// names and decrypts with its key, so a retired generation stays readable
// for as long as it is in the keyring. A spelling of a generation the
// keyring does not hold is an [ErrUnknownGeneration] error, never a guess
// with another key.
//
// Bind a keyring with [Binding.SetKeyring]: the masked types of that binding
// then mask with it instead of their factory's 64-bit cipher. A Keyring is
// immutable and safe for concurrent use; rotate by binding a new one.
type Keyring struct {
	cipher nonce.Cipher
	keys   []ringKey // keys[g-1] is generation g
	cur    *ringKey
}

// ringKey is one generation of a Keyring.
type ringKey struct {
	gen    int
	digits string // the generation in decimal as spellings carry it; "" for generation 1
	block  nonce.Block64
	fp     string
}

// NewKeyring returns the keyring of baseKeys: baseKeys[0] is generation 1,
// baseKeys[1] generation 2, and so on. Each base key is at least 32 bytes,
// used verbatim as the nonce factory uses its BaseKey; the key of cipher c
// (nonce.CipherDefault: Blowfish, as the factory's default) is derived from
// it. current is the generation that formats, 1 to len(baseKeys); 0 means
// the last one. Errors match [ErrConfig].
func NewKeyring(c nonce.Cipher, current int, baseKeys ...[]byte) (*Keyring, error) {
	switch {
	case len(baseKeys) == 0:
		return nil, configError("Keyring: no key")
	case len(baseKeys) > MaxGeneration:
		return nil, configError("Keyring: " + strconv.Itoa(len(baseKeys)) + " generations, at most " + strconv.Itoa(MaxGeneration))
	case current < 0 || current > len(baseKeys):
		return nil, configError("Keyring: current generation " + strconv.Itoa(current) + " is not one of 1.." + strconv.Itoa(len(baseKeys)))
	case current == 0:
		current = len(baseKeys)
	}
	r := &Keyring{cipher: c, keys: make([]ringKey, len(baseKeys))}
	for i, key := range baseKeys {
		g := i + 1
		b, err := nonce.Block64FromBaseKey(c, key)
		if err != nil {
			return nil, &idError{kind: ErrConfig, cause: err,
				msg: "once: invalid options: Keyring generation " + strconv.Itoa(g) + ": " + err.Error()}
		}
		fp, err := nonce.Fingerprint(key)
		if err != nil {
			return nil, &idError{kind: ErrConfig, cause: err,
				msg: "once: invalid options: Keyring generation " + strconv.Itoa(g) + ": " + err.Error()}
		}
		r.keys[i] = ringKey{gen: g, block: b, fp: fp}
		if g > 1 {
			r.keys[i].digits = strconv.Itoa(g)
		}
	}
	r.cur = &r.keys[current-1]
	return r, nil
}

// ParseKeyring reads a keyring from text, one generation per line:
//
//	# generation, base key, and "current" on the line of the generation that formats
//	1 <base key of generation 1>
//	2 <base key of generation 2> current
//
// Generations are numbered 1, 2, 3... without gaps, in order. A base key is
// used verbatim (its bytes as written, like ONCE_KEY), or hex-decoded when
// written "hex:<hex digits>", the form for a key with spaces or other
// bytes a line cannot hold. At most one line says "current"; without one,
// the highest generation is current. A line "cipher <name>" (blowfish, the
// default, speck or des3) chooses the 64-bit cipher, as the factory's
// Config.Cipher64 does. Blank lines and lines starting with '#' are
// ignored. Text with no space at all is one base key: generation 1, the
// keyring of a key from before any rotation. Errors match [ErrConfig] and
// never quote a key.
func ParseKeyring(text string) (*Keyring, error) {
	text = strings.TrimSpace(text)
	if text != "" && !strings.ContainsAny(text, " \t\n\r") {
		return NewKeyring(nonce.CipherDefault, 1, []byte(text))
	}
	var keys [][]byte
	var c nonce.Cipher
	current := 0
	for n, line := range strings.Split(text, "\n") {
		where := "Keyring line " + strconv.Itoa(n+1)
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
			continue
		case f[0] == "cipher" && len(f) == 2:
			var err error
			if c, err = nonce.ParseCipher(f[1]); err != nil {
				return nil, configError(where + ": " + err.Error())
			}
			continue
		case len(f) < 2 || len(f) > 3 || len(f) == 3 && f[2] != "current":
			return nil, configError(where + ": want \"<generation> <key>\" or \"<generation> <key> current\" (write a key with spaces as hex:<digits>)")
		}
		g, err := strconv.Atoi(f[0])
		if err != nil || g != len(keys)+1 {
			return nil, configError(where + ": generation " + quote(f[0]) + ", want " + strconv.Itoa(len(keys)+1) + " (generations are numbered 1, 2, 3... in order)")
		}
		key := []byte(f[1])
		if h, ok := strings.CutPrefix(f[1], "hex:"); ok {
			if key, err = hex.DecodeString(h); err != nil {
				return nil, configError(where + ": the key after \"hex:\" is not hex")
			}
		}
		keys = append(keys, key)
		if len(f) == 3 {
			if current != 0 {
				return nil, configError(where + ": a second \"current\" (generation " + strconv.Itoa(current) + " is current)")
			}
			current = g
		}
	}
	return NewKeyring(c, current, keys...)
}

// KeyringFromEnv reads the keyring in the environment variable name, as
// [ParseKeyring] reads text: one line per generation, or a single base key
// (generation 1). An unset or empty variable is an [ErrConfig] error.
func KeyringFromEnv(name string) (*Keyring, error) {
	s := os.Getenv(name)
	if strings.TrimSpace(s) == "" {
		return nil, configError("Keyring: environment variable " + name + " is not set")
	}
	return ParseKeyring(s)
}

// KeyringFromFile reads the keyring in the file at path, as [ParseKeyring]
// reads text.
func KeyringFromFile(path string) (*Keyring, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &idError{kind: ErrConfig, cause: err, msg: "once: invalid options: Keyring: " + err.Error()}
	}
	return ParseKeyring(string(b))
}

// Current returns the generation that formats.
func (r *Keyring) Current() int { return r.cur.gen }

// Generations returns the number of generations, the highest one.
func (r *Keyring) Generations() int { return len(r.keys) }

// Fingerprints returns the fingerprint of each generation's base key
// (nonce.Fingerprint), generation 1 first: names that tell keys apart
// without showing them.
func (r *Keyring) Fingerprints() []string {
	fps := make([]string, len(r.keys))
	for i := range r.keys {
		fps[i] = r.keys[i].fp
	}
	return fps
}

// String lists the generations as a keyring file would with fingerprints
// in place of the keys: "1 1a2b3c4d\n2 5e6f7a8b current". It never shows a
// key.
func (r *Keyring) String() string {
	var b strings.Builder
	if r.cipher != nonce.CipherDefault {
		b.WriteString("cipher " + r.cipher.String() + "\n")
	}
	for i := range r.keys {
		k := &r.keys[i]
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(k.gen) + " " + k.fp)
		if k == r.cur {
			b.WriteString(" current")
		}
	}
	return b.String()
}

// key returns generation g, or nil when the keyring has no such generation.
func (r *Keyring) key(g int) *ringKey {
	if g < 1 || g > len(r.keys) {
		return nil
	}
	return &r.keys[g-1]
}
