package oncebun

import (
	"errors"
	"fmt"
)

// ErrConfig is the category of set-up mistakes: a nil database, query or
// model, a model inserted before [Register] prepared it, an unsupported
// dialect. Match it with errors.Is.
var ErrConfig = errors.New("oncebun: invalid configuration")

// configError returns an error that matches ErrConfig (and what a %w in
// format wraps) and reads "oncebun: <detail>".
func configError(format string, args ...any) error {
	e := fmt.Errorf("oncebun: "+format, args...)
	return &detailError{msg: e.Error(), wrapped: errors.Unwrap(e)}
}

type detailError struct {
	msg     string
	wrapped error
}

func (e *detailError) Error() string        { return e.msg }
func (e *detailError) Unwrap() error        { return e.wrapped }
func (e *detailError) Is(target error) bool { return target == ErrConfig }
