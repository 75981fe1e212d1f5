// Package lane holds the 64-bit counter of a nonce factory's lease: the
// part of package nonce's lease state that Factory.Counter64's fast path
// reads. It is shared with package once so that once.NewAs draws a counter
// nonce without a call into package nonce: Go does not inline
// Factory.Counter64 (its slow-path call alone exceeds the inlining budget),
// but it inlines [Lane.Draw] and [Current].
//
// The layout is the contract: a nonce.Factory's first field is the atomic
// pointer to its current lease state (nil while disabled), and that state's
// first field is a Lane. Package nonce pins both (TestLaneLayout) and sets
// [Slow].
package lane

import (
	"sync/atomic"
	"unsafe"
)

// Bit layout of a 64-bit counter nonce: ts(42) | machine(9) | count(13).
const (
	countBits   = 13
	countMask   = 1<<countBits - 1
	machineBits = 9
)

// Lane draws 64-bit counter nonces for one lease.
type Lane struct {
	// MBits is the machine ID shifted to its place in a nonce
	// (machine << 13). Read-only.
	MBits uint64
	// Known is the latest clock reading (ms since the epoch) that was
	// checked against the lease deadline. A drawn word whose timestamp is
	// above it takes the slow path.
	Known atomic.Uint64
	_     [48]byte
	// Word is ts<<13 | count, the timestamp lagging real time while the
	// factory is idle: a count overflow carries into it.
	Word atomic.Uint64
	_    [56]byte
}

// Draw takes the next word. When its timestamp is at most Known, ok is true
// and n is the nonce; otherwise v is the drawn word, to hand to [Slow].
func (l *Lane) Draw() (n, v uint64, ok bool) {
	v = l.Word.Add(1)
	if v>>countBits <= l.Known.Load() {
		return (v&^countMask)<<machineBits | l.MBits | v&countMask, v, true
	}
	return 0, v, false
}

// Current returns the lane of the lease that the nonce.Factory at f
// generates from, or nil while the factory is disabled.
func Current(f unsafe.Pointer) *Lane {
	return (*Lane)(atomic.LoadPointer((*unsafe.Pointer)(f)))
}

// Slow finishes a draw that Draw could not: v was drawn from l, the lane of
// the nonce.Factory at f, and its timestamp is ahead of l.Known. It waits
// for the clock (or moves to the factory's next lease) exactly as
// Factory.Counter64 does, and returns Counter64's result. Package nonce
// sets it when it is initialised.
var Slow func(f unsafe.Pointer, l *Lane, v uint64) (uint64, error)
