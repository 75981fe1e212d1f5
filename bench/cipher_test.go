package bench

import (
	"sync/atomic"
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

// BenchmarkNonce measures the bare factory calls under Generate/once-counter
// and Generate/once-encrypted (same idle-factory set-up), so the cost of the
// once layer (the ID type's codec lookup and generator binding) shows as the
// difference, and one uncontended atomic add (atomic-add), the floor of any
// counter shared by goroutines: the unit of the NewAs target (at most 1.6x).
func BenchmarkNonce(b *testing.B) {
	counter := idleFactory(nonce.Config{Fixed: true})
	encrypted := idleFactory(nonce.Config{Fixed: true})
	var word struct {
		_ [64]byte
		atomic.Uint64
		_ [56]byte
	}
	runAllCPU(b, [][]impl{{
		{"atomic-add", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkUint64 = word.Add(1)
			}
		}},
		{"counter64", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkUint64, sinkErr = counter.Counter64()
			}
		}},
		{"encrypted64", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkUint64, sinkErr = encrypted.Encrypted64()
			}
		}},
	}})
}
