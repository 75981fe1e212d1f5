package nonce

import (
	"crypto/pbkdf2"
	"crypto/sha256"
)

const (
	kdfIterations = 1000
	minBaseKeyLen = 32
)

// DeriveKey derives an n-byte key from baseKey with PBKDF2-HMAC-SHA256,
// 1000 iterations, salt = label (labels: "blowfish_64", "speck64_128",
// "des3_64", "blowfish_96", "speck96_144", "des3_96", "aes",
// "speck128_256"). baseKey is used verbatim as bytes and must be at least
// 32 bytes long.
func DeriveKey(baseKey []byte, label string, n int) ([]byte, error) {
	if len(baseKey) < minBaseKeyLen {
		return nil, configErr("base key must be at least %d bytes, got %d (make one with openssl rand -hex 32)", minBaseKeyLen, len(baseKey))
	}
	if n <= 0 {
		return nil, configErr("derived key length must be positive, got %d", n)
	}
	key, err := pbkdf2.Key(sha256.New, string(baseKey), []byte(label), kdfIterations, n)
	if err != nil {
		return nil, configErr("key derivation for %s failed: %v", quote(label), err)
	}
	return key, nil
}

// Block64FromBaseKey derives the 64-bit key of cipher c from baseKey with
// c's label ("blowfish_64", "speck64_128" or "des3_64") and returns the
// cipher, as a factory configured with that base key uses it. Like New, it
// refuses ([ErrConfig]) the public keys once publishes (the demo keys of
// its examples, the placeholders of its manifests and docs): IDs masked
// with them hide nothing.
func Block64FromBaseKey(c Cipher, baseKey []byte) (Block64, error) {
	if isPublicKey(baseKey) {
		return nil, errPublicKey
	}
	sp, err := specFor(64, c)
	if err != nil {
		return nil, err
	}
	key, err := DeriveKey(baseKey, sp.label, sp.keyLen)
	if err != nil {
		return nil, err
	}
	return newBlock64(sp.cipher, key)
}
