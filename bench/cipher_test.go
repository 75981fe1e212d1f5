package bench

import (
	"testing"

	"github.com/once-go/once/nonce"
)

// BenchmarkCipher64 isolates the 64-bit block ciphers behind masking and
// encrypted nonces (one Encrypt of a varied block): the floor under
// Format/once-masked, Parse/once-masked and Generate/once-encrypted.
func BenchmarkCipher64(b *testing.B) {
	for _, c := range []nonce.Cipher{nonce.Speck, nonce.Blowfish, nonce.DES3} {
		b.Run(c.String(), func(b *testing.B) {
			blk, err := nonce.Block64FromBaseKey(c, benchBaseKey)
			if err != nil {
				b.Fatal(err)
			}
			in := &ours().ids
			b.ReportAllocs()
			var acc uint64
			for i := 0; b.Loop(); i++ {
				acc ^= blk.Encrypt(in[i&mask].Uint64())
			}
			sinkUint64 = acc
		})
	}
}
