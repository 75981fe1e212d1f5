package oncesqlx

import (
	"errors"
	"fmt"
)

// ErrConfig is the category of set-up mistakes: a nil database, context or
// argument, an ID kind or driver without a column type. Match it with
// errors.Is.
var ErrConfig = errors.New("oncesqlx: invalid configuration")

// configError returns an error that matches ErrConfig (and what a %w in
// format wraps) and reads "oncesqlx: <detail>".
func configError(format string, args ...any) error {
	e := fmt.Errorf("oncesqlx: "+format, args...)
	return &detailError{msg: e.Error(), wrapped: errors.Unwrap(e)}
}

type detailError struct {
	msg     string
	wrapped error
}

func (e *detailError) Error() string        { return e.msg }
func (e *detailError) Unwrap() error        { return e.wrapped }
func (e *detailError) Is(target error) bool { return target == ErrConfig }
