package once

import "github.com/once-go/once/nonce"

// errNoKey is returned when a masked type's factory has no key material.
var errNoKey = noKeyError(nonce.ErrNoKey)

// cipher returns the 64-bit block cipher that masks generation 1, the one
// generation of a spelling that carries none: the bound keyring's first
// key, or the bound factory's cipher. (A keyring whose current generation
// is not 1 formats through appendGen.)
func (c *codec) cipher() (nonce.Block64, error) {
	if r := c.gen.Keyring(); r != nil {
		return r.keys[0].block, nil
	}
	f := c.gen.Factory()
	if f == nil {
		return nil, errNoGenerator
	}
	b := f.Cipher64()
	if b == nil {
		return nil, errNoKey
	}
	return b, nil
}

// maskValue returns what a masked type shows for the stored value v.
func (c *codec) maskValue(v uint64) (uint64, error) {
	b, err := c.cipher()
	if err != nil {
		return 0, err
	}
	return b.Encrypt(v), nil
}

// unmask returns the stored value behind the shown value v.
func (c *codec) unmask(v uint64) (uint64, error) {
	b, err := c.cipher()
	if err != nil {
		return 0, err
	}
	return b.Decrypt(v), nil
}
