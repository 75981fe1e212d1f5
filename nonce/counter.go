package nonce

// Counter nonces. Each size has one atomic word in the lease's state; a
// call is one atomic add plus bit packing. The 64-bit word holds
// ts<<13 | count, so a count overflow carries into the timestamp, which
// therefore lags real time while the factory is idle and catches up in
// bursts. The timestamp must never pass real time: a value whose timestamp
// is above st.known (the latest clock reading, checked against the
// deadline) takes the slow path, which reads the clock and, if needed,
// waits for it (see await).
//
// Under a lease the fast path also reads the monotonic clock once, after
// its draw, and takes the slow path (which expires the factory) when the
// deadline has passed: a process suspended past its deadline (SIGSTOP, a
// VM pause) resumes before its deadline timer runs, and its first call
// must not emit. Its timestamps (<= st.known, read before the deadline)
// would not collide with the next holder's, which start after the
// deadline, but the lease's rule is that nothing is generated once it may
// have run out. A factory without a deadline (Fixed, or activated without
// one) reads no clock on the fast path.

// Counter64 returns the next 64-bit counter nonce: one atomic add, one load
// and bit packing, unless the counter has caught up with the clock (then
// the call waits for the clock's next millisecond).
func (f *Factory) Counter64() (uint64, error) {
	st := f.state.Load()
	if st == nil {
		return 0, f.disabledErr()
	}
	v := st.word.Add(1)
	if v>>count64Bits <= st.known.Load() && f.live(st) {
		return (v&^count64Mask)<<machineBits | st.mbits | v&count64Mask, nil
	}
	return f.counter64Slow(st, v)
}

// live reports whether st's deadline, if it has one, is still ahead: one
// monotonic clock reading under a lease, none without a deadline.
func (f *Factory) live(st *state) bool {
	d := st.deadline.Load()
	return d == noDeadline || f.elapsed(st) < d
}

// counter64Slow handles a disabled factory (st == nil) and a value v drawn
// from st whose timestamp is ahead of the last clock reading.
func (f *Factory) counter64Slow(st *state, v uint64) (uint64, error) {
	for {
		if st == nil {
			return 0, f.disabledErr()
		}
		ts := v >> count64Bits
		ok, err := f.await(st, ts)
		if err != nil {
			return 0, err
		}
		if ok {
			return top64(ts, st.machine, v&count64Mask), nil
		}
		// A new lease replaced st: the value drawn from st is dropped.
		if st = f.state.Load(); st != nil {
			v = st.word.Add(1)
		}
	}
}

// Counter96 returns the next 96-bit counter nonce. Its 45-bit counter wraps
// into the timestamp only every 2^45 values, so the hot path reads the
// clock only to check a lease's deadline.
func (f *Factory) Counter96() ([12]byte, error) {
	if st := f.state.Load(); st != nil {
		n := st.c96.Add(1) - 1
		if ts := st.initAt + n>>count96Bits; ts <= st.known.Load() && n < sealedCounter && f.live(st) {
			return pack96(ts, st.machine, n&count96Mask), nil
		}
		return f.counter96Slow(st, n)
	}
	return [12]byte{}, f.disabledErr()
}

func (f *Factory) counter96Slow(st *state, n uint64) ([12]byte, error) {
	for {
		ts := st.initAt + n>>count96Bits
		ok, err := f.await(st, ts)
		if err != nil {
			return [12]byte{}, err
		}
		if ok {
			return pack96(ts, st.machine, n&count96Mask), nil
		}
		if st = f.state.Load(); st == nil {
			return [12]byte{}, f.disabledErr()
		}
		n = st.c96.Add(1) - 1
	}
}

// Counter128 returns the next 128-bit counter nonce: the lease's start
// time, the machine ID and a 64-bit count.
func (f *Factory) Counter128() ([16]byte, error) {
	if st := f.state.Load(); st != nil {
		n := st.c128.Add(1) - 1
		if st.initAt <= st.known.Load() && n < sealedCounter && f.live(st) {
			return pack128(st.initAt, st.machine, n), nil
		}
		return f.counter128Slow(st, n)
	}
	return [16]byte{}, f.disabledErr()
}

func (f *Factory) counter128Slow(st *state, n uint64) ([16]byte, error) {
	for {
		ok, err := f.await(st, st.initAt)
		if err != nil {
			return [16]byte{}, err
		}
		if ok {
			return pack128(st.initAt, st.machine, n), nil
		}
		if st = f.state.Load(); st == nil {
			return [16]byte{}, f.disabledErr()
		}
		n = st.c128.Add(1) - 1
	}
}
