package once

import "database/sql/driver"

// Test hooks: the ID types reach their codec only through their spec type;
// these run options chosen at run time through the same code.

// OptionsParse parses s as a type with options o parses it (ParseAs).
func OptionsParse(o Options, s string) (ID, error) {
	c, err := o.resolve()
	if err != nil {
		return ID{}, err
	}
	v, err := parseText(&c, s)
	return ID{v}, err
}

// OptionsValue is Value of a type with options o.
func OptionsValue(o Options, id ID) (driver.Value, error) {
	c, err := o.resolve()
	if err != nil {
		return nil, err
	}
	return c.driverValue(id.v)
}

// OptionsScan is Scan of a type with options o.
func OptionsScan(o Options, src any) (ID, error) {
	c, err := o.resolve()
	if err != nil {
		return ID{}, err
	}
	v, err := c.scan(src)
	return ID{v}, err
}
