package nonce

// Sortable nonces. Each size has one atomic word ts<<22 | count in the
// lease's state. A call reads the clock; a later millisecond than the
// word's is claimed by a CAS to now<<22 (count 0), otherwise the count is
// raised by a CAS while below the size's limit. Every emitted value is a
// distinct, strictly increasing state of the word, so values never repeat
// and never go backwards. Only CAS writes the word, so a full count can
// never carry into the timestamp. A full millisecond makes callers yield
// until the clock moves on.

// Sortable64 returns the next 64-bit sortable nonce. At most 8,192 are made
// per millisecond; further calls wait for the next millisecond.
func (f *Factory) Sortable64() (uint64, error) {
	st, ts, c, err := f.nextSortable(sortWord64, sortLimit64)
	if err != nil {
		return 0, err
	}
	return top64(ts, st.machine, c), nil
}

// Sortable96 returns the next 96-bit sortable nonce (at most 4,194,304 per
// millisecond).
func (f *Factory) Sortable96() ([12]byte, error) {
	st, ts, c, err := f.nextSortable(sortWord96, sortLimitWide)
	if err != nil {
		return [12]byte{}, err
	}
	return pack96(ts, st.machine, c), nil
}

// Sortable128 returns the next 128-bit sortable nonce (at most 4,194,304
// per millisecond).
func (f *Factory) Sortable128() ([16]byte, error) {
	st, ts, c, err := f.nextSortable(sortWord128, sortLimitWide)
	if err != nil {
		return [16]byte{}, err
	}
	return pack128(ts, st.machine, c), nil
}

const (
	sortWord64 = iota
	sortWord96
	sortWord128
)

func (st *state) sortWord(which int) *paddedWord {
	switch which {
	case sortWord64:
		return &st.s64
	case sortWord96:
		return &st.s96
	}
	return &st.s128
}

// nextSortable claims the next (ts, count) of a sortable word.
func (f *Factory) nextSortable(which int, limit uint64) (*state, uint64, uint64, error) {
	for spins := 0; ; spins++ {
		st := f.state.Load()
		if st == nil {
			return nil, 0, 0, f.disabledErr()
		}
		el := f.elapsed(st)
		if el >= st.deadline.Load() {
			return nil, 0, 0, f.expire(st)
		}
		now := st.ms(el)
		if now >= maxTS {
			return nil, 0, 0, errOverflow
		}
		w := st.sortWord(which)
		for {
			old := w.Load()
			if old == sealedSort {
				break // retired by a new lease: start over with it
			}
			ts, c := old>>sortCountBits, old&sortCountMask
			if now > ts {
				if w.CompareAndSwap(old, now<<sortCountBits) {
					return st, now, 0, nil
				}
				continue
			}
			// now <= ts: another caller already claimed ts, a clock reading
			// at least as recent as ours.
			if c+1 < limit {
				if w.CompareAndSwap(old, old+1) {
					return st, ts, c + 1, nil
				}
				continue
			}
			// Millisecond ts is full: wait for the clock to pass it.
			pause(st.until(el, ts+1), spins)
			break
		}
	}
}
