package once

import (
	"encoding/binary"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/once-go/once/nonce"
)

// Options shape an ID type: how it is spelled as text and JSON, how it is
// stored, and how new IDs are made. The zero value of every field means its
// default, so the zero Options are the package defaults that [ID] uses:
// url64, no prefix, a signed bigint in the database, no mask, counter
// nonces, the process default generator.
//
// Invalid combinations are configuration errors ([ErrConfig]) naming the
// option: report them at startup with [Options.Check] or [Check]; every
// operation of a misconfigured type returns the same error.
type Options struct {
	// Prefix is put in front of every text and JSON spelling, e.g. "usr_"
	// (the separator is part of it). Non-empty printable ASCII without
	// spaces; empty means no prefix. Parsing requires it exactly.
	Prefix string
	// Format is the text and JSON spelling: URL64 (default), Hex, Hex32,
	// Signed or Unsigned. Raw is not a text format.
	Format Format
	// DBFormat is what Value returns and Scan accepts: Signed (default,
	// bigint), Unsigned (MySQL BIGINT UNSIGNED), Raw (bytea, BINARY(8)) or
	// a text format (URL64, Hex, Hex32).
	DBFormat Format
	// PersistPrefix stores the prefix in the column too (prefix+text or
	// prefix+8 bytes). It needs a Prefix and a text or raw DBFormat.
	PersistPrefix bool
	// Mask shows E(stored) under the generator's 64-bit block cipher
	// (nonce.Factory.Cipher64) instead of the stored value. The database
	// always holds the stored value.
	Mask bool
	// Nonce is the kind of 64-bit nonce new IDs are: nonce.Counter (the
	// default, also for zero), nonce.Sortable or nonce.Encrypted. Encrypted
	// with Mask is an error (masking an encrypted nonce adds nothing).
	Nonce nonce.Kind
	// Generator binds the type to a nonce factory for New and masking. Nil
	// means the process default, [DefaultBinding].
	Generator *Binding
}

// Check reports whether the options are valid: nil, or an [ErrConfig]
// error naming the first invalid option.
func (o Options) Check() error {
	_, err := o.resolve()
	return err
}

// codec is a validated, resolved set of options: every operation runs on
// one. A codec with err set fails every operation with err.
type codec struct {
	key        unsafe.Pointer // identity of the typed ID type in the codec cache (typeKey)
	opts       Options        // as declared
	prefix     string
	jsonPrefix string // prefix escaped for a JSON string
	pword      uint64 // the prefix's bytes, little-endian, when it has at most 8 (short)
	short      bool   // len(prefix) <= 8: appendText stores pword in one write
	stem       string // prefix without its final separator, when rotatable
	sep        byte   // the prefix's final separator, when rotatable
	rotatable  bool   // the prefix can carry a key generation (genPrefixable)
	format     Format
	db         Format
	persist    bool
	mask       bool
	nonce      nonce.Kind
	gen        *Binding // never nil
	counterGen *Binding // gen if the codec is valid and draws counter nonces, else nil: the fast path of newValue and NewAs
	err        error
}

// plain is the codec of ID: the package defaults.
var plain = codec{format: URL64, db: Signed, nonce: nonce.Counter, gen: &defaultBinding, short: true, counterGen: &defaultBinding}

// resolve validates o and fills in the defaults.
func (o Options) resolve() (codec, error) {
	c := codec{opts: o, prefix: o.Prefix, jsonPrefix: o.Prefix, format: o.Format, db: o.DBFormat,
		persist: o.PersistPrefix, mask: o.Mask, nonce: o.Nonce, gen: o.Generator}
	if c.format == 0 {
		c.format = URL64
	}
	if c.db == 0 {
		c.db = Signed
	}
	if c.nonce == 0 {
		c.nonce = nonce.Counter
	}
	if c.gen == nil {
		c.gen = &defaultBinding
	}
	var err error
	switch {
	case c.format == Raw:
		err = configError("Format raw is a database format only (use it as DBFormat)")
	case c.format > Raw:
		err = configError("unknown Format " + c.format.String())
	case c.db > Raw:
		err = configError("unknown DBFormat " + c.db.String())
	case c.nonce > nonce.Encrypted:
		err = configError("unknown Nonce " + c.nonce.String())
	case c.persist && c.prefix == "":
		err = configError("PersistPrefix without a Prefix")
	case c.persist && c.db.isInteger():
		err = configError("PersistPrefix needs a text or raw DBFormat, not " + c.db.String())
	case c.mask && c.nonce == nonce.Encrypted:
		err = configError("Mask with Nonce encrypted: encrypted IDs are already unpredictable, masking them adds nothing")
	default:
		err = checkPrefix(c.prefix)
	}
	if err != nil {
		return codec{opts: o, err: err}, err
	}
	if c.nonce == nonce.Counter {
		c.counterGen = c.gen
	}
	if len(c.prefix) <= 8 {
		var w [8]byte
		copy(w[:], c.prefix)
		c.pword, c.short = binary.LittleEndian.Uint64(w[:]), true
	}
	if genPrefixable(c.prefix) {
		c.stem, c.sep, c.rotatable = c.prefix[:len(c.prefix)-1], c.prefix[len(c.prefix)-1], true
	}
	if strings.ContainsAny(c.prefix, `"\`) {
		r := strings.NewReplacer(`"`, `\"`, `\`, `\\`)
		c.jsonPrefix = r.Replace(c.prefix)
	}
	return c, nil
}

// checkPrefix accepts printable ASCII without spaces.
func checkPrefix(p string) error {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == ' ':
			return configError("Prefix " + quote(p) + " contains a space")
		case c < 0x21 || c > 0x7e:
			return configError("Prefix " + quote(p) + " contains " + quoteByte(c) +
				" at offset " + strconv.Itoa(i) + " (want printable ASCII)")
		}
	}
	return nil
}

// Spec declares the options of an ID type. The spec types of [Typed] IDs
// implement it (a zero-size struct type with an Options method); so do [ID]
// and every Typed[S], which report their options.
type Spec interface {
	Options() Options
}

// Check validates the options of ID types at startup: pass specs
// (userSpec{}) or IDs (UserID{}). It returns nil or the [ErrConfig] errors
// of all invalid ones joined, each naming its type and option; a nil or
// pointer argument is such an error too, naming its position.
func Check(specs ...Spec) error {
	var errs []error
	var opts []Options
	var names []string
	for i, s := range specs {
		typ := reflect.TypeOf(s)
		if typ == nil || typ.Kind() == reflect.Pointer {
			errs = append(errs, configError("Check: argument "+strconv.Itoa(i)+" is "+
				nilName(typ)+"; want a spec or ID value"))
			continue
		}
		var err error
		if t, ok := s.(interface{ options() (Options, error) }); ok {
			var o Options
			if o, err = t.options(); err == nil {
				err = o.Check()
			}
		} else if err = checkSpec(s); err == nil {
			err = s.Options().Check()
		}
		if err == nil {
			var o Options
			if o, err = optionsOf(s); err == nil {
				err = checkRotated(o)
				opts, names = append(opts, o), append(names, typ.String())
			}
		}
		if err != nil {
			errs = append(errs, inType(err, typ.String()))
		}
	}
	errs = append(errs, checkGenerations(opts, names)...)
	return errors.Join(errs...)
}

// optionsOf returns the declared options of a valid spec or ID value.
func optionsOf(s Spec) (Options, error) {
	if t, ok := s.(interface{ options() (Options, error) }); ok {
		return t.options()
	}
	return s.Options(), nil
}

// nilName names a nil or pointer argument of Check.
func nilName(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	return "a pointer (" + t.String() + ")"
}

// checkSpec verifies that s is a zero-size, non-pointer spec value.
func checkSpec(s any) error {
	t := reflect.TypeOf(s)
	switch {
	case t == nil:
		return configError("the spec type is an interface; want a zero-size struct type with an Options method")
	case t.Kind() == reflect.Pointer || t.Size() != 0:
		return configError("spec type " + t.String() + " is not zero-size; want a zero-size struct type with an Options method")
	}
	return nil
}
