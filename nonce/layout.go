package nonce

import "encoding/binary"

// Bit layout shared by every kind (big-endian):
//
//	64-bit:  ts(42) | machine(9) | count(13)
//	96-bit:  ts(42) | machine(9) | count(45)
//	128-bit: ts(42) | machine(9) | 13 zero bits | count(64)
const (
	machineBits   = 9
	count64Bits   = 13
	count64Mask   = 1<<count64Bits - 1
	count96Bits   = 45
	count96Mask   = 1<<count96Bits - 1
	tsShift       = machineBits + count64Bits // 22: ts position in the top 64 bits
	maxTS         = 1<<42 - 1                 // first timestamp refused (the last one is reserved)
	msPerNs       = 1_000_000
	sortCountBits = 22 // sortable word: ts<<22 | count
	sortCountMask = 1<<sortCountBits - 1
	sortLimit64   = 1 << count64Bits   // 8,192 per ms
	sortLimitWide = 1 << sortCountBits // 4,194,304 per ms (96/128)
)

// top64 is the first 64 bits of every layout: ts, machine, and 13 more
// bits (the 64-bit counter, the top of the 45-bit counter, or zero).
func top64(ts, machine, low13 uint64) uint64 {
	return ts<<tsShift | machine<<count64Bits | low13
}

func pack96(ts, machine, count uint64) (b [12]byte) {
	binary.BigEndian.PutUint64(b[:8], top64(ts, machine, count>>32))
	binary.BigEndian.PutUint32(b[8:], uint32(count))
	return b
}

func pack128(ts, machine, count uint64) (b [16]byte) {
	binary.BigEndian.PutUint64(b[:8], top64(ts, machine, 0))
	binary.BigEndian.PutUint64(b[8:], count)
	return b
}
