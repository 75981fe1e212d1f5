package oncent

import (
	"errors"
	"fmt"
)

// ErrConfig is the category of set-up mistakes: an ID type that ent's
// generated code cannot name, a hook on an entity whose key is not the ID
// type. Match it with errors.Is.
var ErrConfig = errors.New("oncent: invalid configuration")

// ErrPresetID is the error of a create whose key was set before it
// (SetID, such as with an "id" a client sent) when neither its context
// ([WithPresetIDs]) nor the entity's [Mixin] (PresetIDs) keeps preset
// keys. The create runs no SQL. The error also matches once.ErrInvalid.
// Match it with errors.Is.
var ErrPresetID = errors.New("oncent: ID set before the create")

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
