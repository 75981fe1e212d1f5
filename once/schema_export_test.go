package once

// OptionsUnmarshalJSON is UnmarshalJSON of a type with options o.
func OptionsUnmarshalJSON(o Options, data []byte) (ID, error) {
	c, err := o.resolve()
	if err != nil {
		return ID{}, err
	}
	v, err := c.unmarshalJSON(data)
	return ID{v}, err
}
