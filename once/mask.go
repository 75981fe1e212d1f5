package once

import "github.com/once-go/once/nonce"

// errNoKey is returned when a masked type's factory has no key material.
var errNoKey = noKeyError(nonce.ErrNoKey)

// cipher returns the 64-bit block cipher of the bound factory.
func (c *codec) cipher() (nonce.Block64, error) {
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
