package once

import (
	"sync/atomic"

	"github.com/once-go/once/nonce"
)

// A Binding names the nonce factory that ID types draw new values and their
// masking cipher from. Bind a type explicitly with Options.Generator; types
// without one use the process default, [DefaultBinding]. The factory can be
// set or replaced at any time (e.g. once the key is loaded), also after the
// type's options were cached. A [Keyring] set with [Binding.SetKeyring]
// masks instead of the factory's cipher, with one key per key generation.
// The zero Binding is unbound; it is safe for concurrent use.
type Binding struct {
	f atomic.Pointer[nonce.Factory]
	k atomic.Pointer[Keyring]
}

// Bind returns a Binding to f.
func Bind(f *nonce.Factory) *Binding {
	b := new(Binding)
	b.Set(f)
	return b
}

// Set binds b to f (nil unbinds).
func (b *Binding) Set(f *nonce.Factory) { b.f.Store(f) }

// Factory returns the bound factory, or nil.
func (b *Binding) Factory() *nonce.Factory {
	if b == nil {
		return nil
	}
	return b.f.Load()
}

// SetKeyring makes the masked ID types of b mask with the key generations
// of k instead of the factory's 64-bit cipher (nil: the factory's cipher
// again, the one generation of a type without a keyring). Rotate a key by
// setting a keyring that holds one more generation (see [Keyring]).
func (b *Binding) SetKeyring(k *Keyring) { b.k.Store(k) }

// Keyring returns the keyring set with SetKeyring, or nil.
func (b *Binding) Keyring() *Keyring {
	if b == nil {
		return nil
	}
	return b.k.Load()
}

// defaultBinding is the process default: the package's one piece of
// mutable state.
var defaultBinding Binding

// DefaultBinding returns the binding that [New] and every ID type whose
// Options.Generator is nil draw new IDs and the masking cipher from. The
// application (or its lease set-up) binds it at startup to a factory that a
// lease manager activates:
//
//	once.DefaultBinding().Set(ids) // ids: a *nonce.Factory
//
// Set(nil) unbinds it.
func DefaultBinding() *Binding { return &defaultBinding }

// New returns a new ID from the default binding's factory (a counter
// nonce). It returns an error, never a zero ID, while no factory is bound
// ([ErrNoGenerator]) or the factory holds no lease (nonce.ErrDisabled).
func New() (ID, error) {
	v, err := plain.newValue()
	return ID{v}, err
}

// New returns a new ID drawn as o.Nonce from o's generator.
func (o Options) New() (ID, error) {
	c, err := o.resolve()
	if err != nil {
		return ID{}, err
	}
	v, err := c.newValue()
	return ID{v}, err
}

// NewFunc returns a function that does what o.New does, with o checked
// once instead of on every call: for code that draws many IDs of a type it
// knows only at run time, such as the ORM adapters filling a batch (a
// typed ID known at compile time has [NewAs]). Invalid options are its
// error. The function reads o.Generator (or the default binding) on each
// call, as New does, and is safe for concurrent use.
func (o Options) NewFunc() (func() (ID, error), error) {
	c, err := o.resolve()
	if err != nil {
		return nil, err
	}
	return func() (ID, error) {
		v, err := c.newValue()
		return ID{v}, err
	}, nil
}

// newValue draws the next value of the codec's nonce kind. Zero means "no
// ID", so a zero draw (possible only at the epoch's first millisecond for a
// counter nonce, once per key for an encrypted one) is skipped. NewAs
// writes out its first lines (see there).
func (c *codec) newValue() (uint64, error) {
	if f := c.counterGen.Factory(); f != nil {
		n, err := f.Counter64()
		if err != nil {
			return 0, generateError(err)
		}
		if n != 0 {
			return n, nil
		}
	}
	return c.newValueSlow()
}

// newValueSlow is newValue for every other case: a misconfigured type, no
// generator, sortable and encrypted nonces, a zero counter draw, and
// generator errors.
func (c *codec) newValueSlow() (uint64, error) {
	if c.err != nil {
		return 0, c.err
	}
	f := c.gen.Factory()
	if f == nil {
		return 0, errNoGenerator
	}
	for {
		var v uint64
		var err error
		switch c.nonce {
		case nonce.Sortable:
			v, err = f.Sortable64()
		case nonce.Encrypted:
			v, err = f.Encrypted64()
		default:
			v, err = f.Counter64()
		}
		if err != nil {
			return 0, generateError(err)
		}
		if v != 0 {
			return v, nil
		}
	}
}
