package nonce

import "encoding/binary"

// Encrypted nonces: a counter (or sortable, see Config.EncryptedBase) nonce
// of the same size through the size's block cipher. A permutation keeps
// uniqueness. With Blowfish or 3DES the 96-bit nonce is a 64-bit base nonce,
// encrypted, followed by 4 zero bytes.

func (f *Factory) base64() (uint64, error) {
	if f.base == Sortable {
		return f.Sortable64()
	}
	return f.Counter64()
}

// Encrypted64 returns the next 64-bit encrypted nonce.
func (f *Factory) Encrypted64() (uint64, error) {
	if f.b64 == nil {
		return 0, errNoKey64
	}
	v, err := f.base64()
	if err != nil {
		return 0, err
	}
	return f.b64.Encrypt(v), nil
}

// Encrypted96 returns the next 96-bit encrypted nonce.
func (f *Factory) Encrypted96() ([12]byte, error) {
	if f.b96 == nil {
		return [12]byte{}, errNoKey96
	}
	if f.narrow96 != nil {
		v, err := f.base64()
		if err != nil {
			return [12]byte{}, err
		}
		var b [12]byte
		binary.BigEndian.PutUint64(b[:8], f.narrow96.Encrypt(v))
		return b, nil
	}
	var v [12]byte
	var err error
	if f.base == Sortable {
		v, err = f.Sortable96()
	} else {
		v, err = f.Counter96()
	}
	if err != nil {
		return [12]byte{}, err
	}
	return f.b96.encrypt96(v), nil
}

// Encrypted128 returns the next 128-bit encrypted nonce.
func (f *Factory) Encrypted128() ([16]byte, error) {
	if f.b128 == nil {
		return [16]byte{}, errNoKey128
	}
	var v [16]byte
	var err error
	if f.base == Sortable {
		v, err = f.Sortable128()
	} else {
		v, err = f.Counter128()
	}
	if err != nil {
		return [16]byte{}, err
	}
	return f.b128.encrypt128(v), nil
}

// Encrypt64 enciphers one 64-bit block with the factory's 64-bit cipher.
// It works whether or not the factory is enabled.
func (f *Factory) Encrypt64(v uint64) (uint64, error) {
	if f.b64 == nil {
		return 0, errNoKey64
	}
	return f.b64.Encrypt(v), nil
}

// Decrypt64 inverts Encrypt64.
func (f *Factory) Decrypt64(v uint64) (uint64, error) {
	if f.b64 == nil {
		return 0, errNoKey64
	}
	return f.b64.Decrypt(v), nil
}

// Encrypt96 enciphers a 96-bit value with the factory's 96-bit cipher. With
// Blowfish or 3DES only the first 8 bytes are encrypted; the last 4 are
// returned unchanged.
func (f *Factory) Encrypt96(v [12]byte) ([12]byte, error) {
	if f.b96 == nil {
		return [12]byte{}, errNoKey96
	}
	return f.b96.encrypt96(v), nil
}

// Decrypt96 inverts Encrypt96.
func (f *Factory) Decrypt96(v [12]byte) ([12]byte, error) {
	if f.b96 == nil {
		return [12]byte{}, errNoKey96
	}
	return f.b96.decrypt96(v), nil
}

// Encrypt128 enciphers one 128-bit block with the factory's 128-bit cipher.
func (f *Factory) Encrypt128(v [16]byte) ([16]byte, error) {
	if f.b128 == nil {
		return [16]byte{}, errNoKey128
	}
	return f.b128.encrypt128(v), nil
}

// Decrypt128 inverts Encrypt128.
func (f *Factory) Decrypt128(v [16]byte) ([16]byte, error) {
	if f.b128 == nil {
		return [16]byte{}, errNoKey128
	}
	return f.b128.decrypt128(v), nil
}
