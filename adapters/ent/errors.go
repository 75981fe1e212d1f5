package oncent

import (
	"errors"
	"fmt"
)

// ErrConfig is the category of set-up mistakes: an ID type that ent's
// generated code cannot name, a hook on an entity whose key is not the ID
// type. Match it with errors.Is.
var ErrConfig = errors.New("oncent: invalid configuration")

// configError returns an error that matches ErrConfig (and what a %w in
// format wraps) and reads "oncent: <detail>".
func configError(format string, args ...any) error {
	e := fmt.Errorf("oncent: "+format, args...)
	return &detailError{msg: e.Error(), wrapped: errors.Unwrap(e)}
}

type detailError struct {
	msg     string
	wrapped error
}

func (e *detailError) Error() string        { return e.msg }
func (e *detailError) Unwrap() error        { return e.wrapped }
func (e *detailError) Is(target error) bool { return target == ErrConfig }
