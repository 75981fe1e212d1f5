package once

// NewAsPlain is NewAs without the lane: the codec, then a plain call to the
// bound factory's Counter64 (what BenchmarkNewAsPath compares NewAs with).
func NewAsPlain[T IDType]() (T, error) {
	v, err := codecFor(typeKey[T]()).newValuePlain()
	return T{v}, err
}

// newValuePlain is newValue with a plain call to Counter64 on the fast path.
func (c *codec) newValuePlain() (uint64, error) {
	if g := c.counterGen; g != nil {
		if f := g.f.Load(); f != nil {
			n, err := f.Counter64()
			if err != nil {
				return 0, generateError(err)
			}
			if n != 0 {
				return n, nil
			}
		}
	}
	return c.newValueSlow()
}

// NewAsDirect is NewAs with the fast path written out as a plain call to
// Counter64: one call fewer than NewAsPlain.
func NewAsDirect[T IDType]() (T, error) {
	c := codecFor(typeKey[T]())
	if g := c.counterGen; g != nil {
		if f := g.f.Load(); f != nil {
			if n, err := f.Counter64(); err == nil && n != 0 {
				return T{n}, nil
			}
		}
	}
	v, err := c.newValueSlow()
	return T{v}, err
}
