// Package configerr builds the set-up errors of the adapter packages: each
// matches its package's ErrConfig sentinel with errors.Is, reads
// "<package>: <detail>", and wraps what a %w in the detail wraps.
package configerr

import (
	"errors"
	"fmt"
	"slices"
)

// New returns an error reading pkg + ": " + the formatted detail that
// matches sentinel and unwraps to the error a %w in format wraps.
func New(sentinel error, pkg, format string, args ...any) error {
	return NewIs([]error{sentinel}, pkg, format, args...)
}

// NewIs is [New] for an error that matches each of sentinels.
func NewIs(sentinels []error, pkg, format string, args ...any) error {
	e := fmt.Errorf(pkg+": "+format, args...)
	return &detailError{msg: e.Error(), wrapped: errors.Unwrap(e), sentinels: sentinels}
}

type detailError struct {
	msg       string
	wrapped   error
	sentinels []error
}

func (e *detailError) Error() string        { return e.msg }
func (e *detailError) Unwrap() error        { return e.wrapped }
func (e *detailError) Is(target error) bool { return slices.Contains(e.sentinels, target) }
