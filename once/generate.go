package once

import (
	"sync/atomic"

	"github.com/once-go/once/nonce"
)

// A Binding names the nonce factory that ID types draw new values and their
// masking cipher from. Bind a type explicitly with Options.Generator; types
// without one use the process default ([SetGenerator]). The factory can be
// set or replaced at any time (e.g. once the key is loaded), also after the
// type's options were cached. The zero Binding is unbound; it is safe for
// concurrent use.
type Binding struct {
	f atomic.Pointer[nonce.Factory]
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

// defaultBinding is the process default generator: the package's one piece
// of mutable state.
var defaultBinding Binding

// SetGenerator sets the process default generator: the factory that [New]
// and every ID type without its own Options.Generator draw new IDs and the
// masking cipher from. The application (or its lease set-up) calls it at
// startup with a factory that the lease manager activates; nil unsets it.
func SetGenerator(f *nonce.Factory) { defaultBinding.Set(f) }

// DefaultGenerator returns the factory set with [SetGenerator], or nil.
func DefaultGenerator() *nonce.Factory { return defaultBinding.Factory() }

// New returns a new ID from the default generator (a counter nonce). It
// returns an error, never a zero ID, while no generator is set
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

// newValue draws the next value of the codec's nonce kind. Zero means "no
// ID", so a zero draw (possible only for an encrypted nonce, once per key)
// is skipped. The fast path, a counter nonce drawn without error, is
// repeated in NewAs: written out there, a typed ID costs one call (to
// Counter64); a helper for it would not inline.
func (c *codec) newValue() (uint64, error) {
	if c.counter { // a valid codec (gen set) with counter nonces
		// Counter64 returns 0 with every error: a nonzero v is a success.
		if f := c.gen.f.Load(); f != nil {
			if v, _ := f.Counter64(); v != 0 {
				return v, nil
			}
		}
	}
	return c.newValueSlow()
}

// newValueSlow is newValue for every other case: a misconfigured type, no
// generator, sortable and encrypted nonces, and generator errors.
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
		case Sortable:
			v, err = f.Sortable64()
		case Encrypted:
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
