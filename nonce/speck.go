package nonce

import (
	"encoding/binary"
	"math/bits"
)

// Speck (Beaulieu et al., "The SIMON and SPECK Families of Lightweight Block
// Ciphers", 2013) with the byte convention printed in the paper: a block is
// the word x followed by the word y, each big-endian; a key is its words in
// printed order l[m-2] ... l[0], k[0], each big-endian. The round function is
//
//	x = (x >>> α + y) ^ k[i];  y = y <<< β ^ x
//
// with α = 8, β = 3 for every variant used here.

const (
	speck64Rounds     = 27 // Speck64/128: 32-bit words, m = 4
	speck96Rounds     = 29 // Speck96/144: 48-bit words, m = 3
	speck128Rounds128 = 32 // Speck128/128: 64-bit words, m = 2
	speck128Rounds256 = 34 // Speck128/256: 64-bit words, m = 4
	mask48            = 1<<48 - 1
)

// speck64 is Speck64/128: a 64-bit block, a 16-byte key.
type speck64 struct{ rk [speck64Rounds]uint32 }

func newSpeck64(key []byte) *speck64 {
	// key = l2 l1 l0 k0
	l := make([]uint32, speck64Rounds+2)
	for i := range 3 {
		l[i] = binary.BigEndian.Uint32(key[4*(2-i):])
	}
	s := new(speck64)
	k := binary.BigEndian.Uint32(key[12:])
	for i := range speck64Rounds {
		s.rk[i] = k
		if i == speck64Rounds-1 {
			break
		}
		l[i+3] = (k + bits.RotateLeft32(l[i], -8)) ^ uint32(i)
		k = bits.RotateLeft32(k, 3) ^ l[i+3]
	}
	return s
}

// Encrypt enciphers one block; v's high half is x, its low half y.
func (s *speck64) Encrypt(v uint64) uint64 {
	x, y := uint32(v>>32), uint32(v)
	rk := &s.rk
	for i := 0; i < speck64Rounds; i += 3 { // 27 = 9 × 3, unrolled
		x = (bits.RotateLeft32(x, -8) + y) ^ rk[i]
		y = bits.RotateLeft32(y, 3) ^ x
		x = (bits.RotateLeft32(x, -8) + y) ^ rk[i+1]
		y = bits.RotateLeft32(y, 3) ^ x
		x = (bits.RotateLeft32(x, -8) + y) ^ rk[i+2]
		y = bits.RotateLeft32(y, 3) ^ x
	}
	return uint64(x)<<32 | uint64(y)
}

// Decrypt inverts Encrypt.
func (s *speck64) Decrypt(v uint64) uint64 {
	x, y := uint32(v>>32), uint32(v)
	rk := &s.rk
	for i := speck64Rounds - 1; i >= 2; i -= 3 { // unrolled like Encrypt
		y = bits.RotateLeft32(y^x, -3)
		x = bits.RotateLeft32((x^rk[i])-y, 8)
		y = bits.RotateLeft32(y^x, -3)
		x = bits.RotateLeft32((x^rk[i-1])-y, 8)
		y = bits.RotateLeft32(y^x, -3)
		x = bits.RotateLeft32((x^rk[i-2])-y, 8)
	}
	return uint64(x)<<32 | uint64(y)
}

// speck96 is Speck96/144: a 12-byte block, an 18-byte key, 48-bit words kept
// in the low bits of uint64s.
type speck96 struct{ rk [speck96Rounds]uint64 }

func be48(b []byte) uint64 {
	_ = b[5]
	return uint64(b[0])<<40 | uint64(b[1])<<32 | uint64(b[2])<<24 |
		uint64(b[3])<<16 | uint64(b[4])<<8 | uint64(b[5])
}

func putBE48(b []byte, v uint64) {
	_ = b[5]
	b[0], b[1], b[2] = byte(v>>40), byte(v>>32), byte(v>>24)
	b[3], b[4], b[5] = byte(v>>16), byte(v>>8), byte(v)
}

func ror48(v uint64, n uint) uint64 { return (v>>n | v<<(48-n)) & mask48 }
func rol48(v uint64, n uint) uint64 { return (v<<n | v>>(48-n)) & mask48 }

func newSpeck96(key []byte) *speck96 {
	// key = l1 l0 k0
	l := make([]uint64, speck96Rounds+1)
	for i := range 2 {
		l[i] = be48(key[6*(1-i):])
	}
	s := new(speck96)
	k := be48(key[12:])
	for i := range speck96Rounds {
		s.rk[i] = k
		if i == speck96Rounds-1 {
			break
		}
		l[i+2] = ((k + ror48(l[i], 8)) & mask48) ^ uint64(i)
		k = rol48(k, 3) ^ l[i+2]
	}
	return s
}

func (s *speck96) encrypt96(b [12]byte) [12]byte {
	x, y := be48(b[:6]), be48(b[6:])
	for _, k := range &s.rk {
		x = ((ror48(x, 8) + y) & mask48) ^ k
		y = rol48(y, 3) ^ x
	}
	putBE48(b[:6], x)
	putBE48(b[6:], y)
	return b
}

func (s *speck96) decrypt96(b [12]byte) [12]byte {
	x, y := be48(b[:6]), be48(b[6:])
	for i := len(s.rk) - 1; i >= 0; i-- {
		y = ror48(y^x, 3)
		x = rol48(((x^s.rk[i])-y)&mask48, 8)
	}
	putBE48(b[:6], x)
	putBE48(b[6:], y)
	return b
}

// speck128 is Speck128/256 (32-byte key) or Speck128/128 (16-byte key; only
// the paper's vectors use it).
type speck128 struct {
	rk     [speck128Rounds256]uint64
	rounds int
}

func newSpeck128(key []byte) *speck128 {
	m := len(key) / 8 // 2 or 4 key words
	s := &speck128{rounds: speck128Rounds256}
	if m == 2 {
		s.rounds = speck128Rounds128
	}
	// key = l[m-2] ... l[0] k0
	l := make([]uint64, s.rounds+m)
	for i := range m - 1 {
		l[i] = binary.BigEndian.Uint64(key[8*(m-2-i):])
	}
	k := binary.BigEndian.Uint64(key[8*(m-1):])
	for i := range s.rounds {
		s.rk[i] = k
		if i == s.rounds-1 {
			break
		}
		l[i+m-1] = (k + bits.RotateLeft64(l[i], -8)) ^ uint64(i)
		k = bits.RotateLeft64(k, 3) ^ l[i+m-1]
	}
	return s
}

func (s *speck128) encrypt128(b [16]byte) [16]byte {
	x, y := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	for _, k := range s.rk[:s.rounds] {
		x = (bits.RotateLeft64(x, -8) + y) ^ k
		y = bits.RotateLeft64(y, 3) ^ x
	}
	binary.BigEndian.PutUint64(b[:8], x)
	binary.BigEndian.PutUint64(b[8:], y)
	return b
}

func (s *speck128) decrypt128(b [16]byte) [16]byte {
	x, y := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	for i := s.rounds - 1; i >= 0; i-- {
		y = bits.RotateLeft64(y^x, -3)
		x = bits.RotateLeft64((x^s.rk[i])-y, 8)
	}
	binary.BigEndian.PutUint64(b[:8], x)
	binary.BigEndian.PutUint64(b[8:], y)
	return b
}
