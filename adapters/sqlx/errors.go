package oncesqlx

import (
	"errors"

	"github.com/once-go/once/adapters/internal/configerr"
)

// ErrConfig is the category of set-up mistakes: a nil database, context or
// argument, an ID kind or driver without a column type. Match it with
// errors.Is.
var ErrConfig = errors.New("oncesqlx: invalid configuration")

// ErrPresetID is the error of [Fill] or [NamedExec] when a struct holds an
// ID set before the insert in a field they fill (such as an "id" a client
// sent, decoded into the struct), and neither the context
// ([WithPresetIDs]) nor the field (`once:"preset"`) keeps preset IDs.
// Nothing is filled or written. The error also matches once.ErrInvalid.
// Match it with errors.Is.
var ErrPresetID = errors.New("oncesqlx: ID set before the insert")

// configError returns an error that matches ErrConfig (and what a %w in
// format wraps) and reads "oncesqlx: <detail>".
func configError(format string, args ...any) error {
	return configerr.New(ErrConfig, "oncesqlx", format, args...)
}
