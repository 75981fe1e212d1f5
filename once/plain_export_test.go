package once

// NewAsThroughNewValue is NewAs without its written-out first lines: the
// codec's newValue, a second call (what BenchmarkNewAsPath compares NewAs
// with).
func NewAsThroughNewValue[T IDType]() (T, error) {
	v, err := codecFor(typeKey[T]()).newValue()
	return T{v}, err
}
