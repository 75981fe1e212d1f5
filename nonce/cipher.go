package nonce

import (
	"strconv"
	"strings"
)

// Cipher names the block cipher of encrypted nonces of one size.
type Cipher uint8

// Ciphers. CipherDefault selects Blowfish for 64- and 96-bit nonces and
// AES-256 for 128-bit nonces. Speck means Speck64/128, Speck96/144 or
// Speck128/256 depending on the size; DES3 is three-key 3DES (EDE, one
// block); AES is AES-256 and exists only for 128 bits, Blowfish and DES3
// only for 64 and 96 bits.
const (
	CipherDefault Cipher = iota
	Blowfish
	Speck
	DES3
	AES
)

var cipherNames = [...]string{"default", "blowfish", "speck", "des3", "aes"}

// String returns the cipher's name: "default", "blowfish", "speck", "des3"
// or "aes".
func (c Cipher) String() string {
	if int(c) < len(cipherNames) {
		return cipherNames[c]
	}
	return "cipher(" + strconv.Itoa(int(c)) + ")"
}

// ParseCipher returns the cipher named s (as [Cipher.String] spells it,
// case-insensitive; the empty string means [CipherDefault]).
func ParseCipher(s string) (Cipher, error) {
	if s == "" {
		return CipherDefault, nil
	}
	for i, name := range cipherNames {
		if strings.EqualFold(s, name) {
			return Cipher(i), nil
		}
	}
	return 0, configErr("unknown cipher %s (want blowfish, speck, des3, aes or default)", quote(s))
}

// cipherSpec is one row of the key table: the KDF label and key length of a
// cipher at a block size.
type cipherSpec struct {
	cipher Cipher // resolved, never CipherDefault
	label  string
	keyLen int
}

// specFor resolves c for a block of size bits (64, 96 or 128).
func specFor(size int, c Cipher) (cipherSpec, error) {
	switch size {
	case 64:
		switch c {
		case CipherDefault, Blowfish:
			return cipherSpec{Blowfish, "blowfish_64", 16}, nil
		case Speck:
			return cipherSpec{Speck, "speck64_128", 16}, nil
		case DES3:
			return cipherSpec{DES3, "des3_64", 24}, nil
		}
	case 96:
		switch c {
		case CipherDefault, Blowfish:
			return cipherSpec{Blowfish, "blowfish_96", 16}, nil
		case Speck:
			return cipherSpec{Speck, "speck96_144", 18}, nil
		case DES3:
			return cipherSpec{DES3, "des3_96", 24}, nil
		}
	case 128:
		switch c {
		case CipherDefault, AES:
			return cipherSpec{AES, "aes", 32}, nil
		case Speck:
			return cipherSpec{Speck, "speck128_256", 32}, nil
		}
	}
	return cipherSpec{}, configErr("cipher %s is not available for %d-bit nonces", c, size)
}
