package nonce

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"encoding/binary"
	"sync"

	//lint:ignore SA1019 Blowfish is NoNoncense's default 64- and 96-bit nonce cipher: the Elixir wire format needs it, so values encrypted there decrypt here and back
	"golang.org/x/crypto/blowfish"
)

// Block64 is a 64-bit block cipher with a fixed key: a permutation of uint64
// values. Implementations are safe for concurrent use and do not allocate.
// The uint64 is the block read big-endian.
type Block64 interface {
	Encrypt(uint64) uint64
	Decrypt(uint64) uint64
}

// block96 and block128 are the 96- and 128-bit counterparts, internal
// because only the factory uses them.
type block96 interface {
	encrypt96([12]byte) [12]byte
	decrypt96([12]byte) [12]byte
}

type block128 interface {
	encrypt128([16]byte) [16]byte
	decrypt128([16]byte) [16]byte
}

// NewBlock64 returns the 64-bit block cipher c (CipherDefault = Blowfish)
// keyed with key, which must have the exact length of the key table in the
// package documentation (Blowfish 16, Speck64/128 16, 3DES 24 bytes). Use
// [Block64FromBaseKey] to derive the key from a base key.
func NewBlock64(c Cipher, key []byte) (Block64, error) {
	sp, err := specFor(64, c)
	if err != nil {
		return nil, err
	}
	if len(key) != sp.keyLen {
		return nil, configErr("%s key for 64-bit blocks must be %d bytes, got %d", sp.cipher, sp.keyLen, len(key))
	}
	return newBlock64(sp.cipher, key)
}

// newBlock64 builds a resolved cipher from a key of checked length.
func newBlock64(c Cipher, key []byte) (Block64, error) {
	switch c {
	case Speck:
		return newSpeck64(key), nil
	case DES3:
		b, err := des.NewTripleDESCipher(key)
		if err != nil {
			return nil, configErr("3DES key rejected: %v", err)
		}
		return newPooled64(b), nil
	default:
		b, err := blowfish.NewCipher(key)
		if err != nil {
			return nil, configErr("Blowfish key rejected: %v", err)
		}
		return blowfish64{b}, nil
	}
}

func newBlock96(c Cipher, key []byte) (block96, error) {
	if c == Speck {
		return newSpeck96(key), nil
	}
	b, err := newBlock64(c, key)
	if err != nil {
		return nil, err
	}
	return tail96{b}, nil
}

func newBlock128(c Cipher, key []byte) (block128, error) {
	if c == Speck {
		return newSpeck128(key), nil
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, configErr("AES key rejected: %v", err)
	}
	return newPooled128(b), nil
}

// blowfish64 calls the concrete *blowfish.Cipher, so the stack buffer does
// not escape.
type blowfish64 struct{ c *blowfish.Cipher }

func (b blowfish64) Encrypt(v uint64) uint64 {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], v)
	b.c.Encrypt(buf[:], buf[:])
	return binary.BigEndian.Uint64(buf[:])
}

func (b blowfish64) Decrypt(v uint64) uint64 {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], v)
	b.c.Decrypt(buf[:], buf[:])
	return binary.BigEndian.Uint64(buf[:])
}

// The standard library's 3DES and AES hide their concrete types behind
// cipher.Block. A slice passed through an interface method escapes, so a
// stack buffer would be moved to the heap on every call. Instead each call
// borrows a buffer from a sync.Pool (per-P, lock-free in the common case):
// no allocation in steady state.

type pooled64 struct {
	b    cipher.Block
	bufs sync.Pool
}

func newPooled64(b cipher.Block) *pooled64 {
	return &pooled64{b: b, bufs: sync.Pool{New: func() any { return new([8]byte) }}}
}

func (p *pooled64) Encrypt(v uint64) uint64 {
	buf := p.bufs.Get().(*[8]byte)
	binary.BigEndian.PutUint64(buf[:], v)
	p.b.Encrypt(buf[:], buf[:])
	v = binary.BigEndian.Uint64(buf[:])
	p.bufs.Put(buf)
	return v
}

func (p *pooled64) Decrypt(v uint64) uint64 {
	buf := p.bufs.Get().(*[8]byte)
	binary.BigEndian.PutUint64(buf[:], v)
	p.b.Decrypt(buf[:], buf[:])
	v = binary.BigEndian.Uint64(buf[:])
	p.bufs.Put(buf)
	return v
}

type pooled128 struct {
	b    cipher.Block
	bufs sync.Pool
}

func newPooled128(b cipher.Block) *pooled128 {
	return &pooled128{b: b, bufs: sync.Pool{New: func() any { return new([16]byte) }}}
}

func (p *pooled128) encrypt128(v [16]byte) [16]byte {
	buf := p.bufs.Get().(*[16]byte)
	*buf = v
	p.b.Encrypt(buf[:], buf[:])
	v = *buf
	p.bufs.Put(buf)
	return v
}

func (p *pooled128) decrypt128(v [16]byte) [16]byte {
	buf := p.bufs.Get().(*[16]byte)
	*buf = v
	p.b.Decrypt(buf[:], buf[:])
	v = *buf
	p.bufs.Put(buf)
	return v
}

// tail96 is the 96-bit mode of a 64-bit cipher (Blowfish, 3DES): the first
// 8 bytes are one encrypted block, the last 4 are kept as they are (zero in
// nonces the factory makes).
type tail96 struct{ b Block64 }

func (t tail96) encrypt96(v [12]byte) [12]byte {
	binary.BigEndian.PutUint64(v[:8], t.b.Encrypt(binary.BigEndian.Uint64(v[:8])))
	return v
}

func (t tail96) decrypt96(v [12]byte) [12]byte {
	binary.BigEndian.PutUint64(v[:8], t.b.Decrypt(binary.BigEndian.Uint64(v[:8])))
	return v
}
