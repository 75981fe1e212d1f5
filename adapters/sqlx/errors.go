package oncesqlx

import (
	"errors"

	"github.com/once-go/once/adapters/internal/configerr"
)

// ErrConfig is the category of set-up mistakes: a nil database, context or
// argument, an ID kind or driver without a column type. Match it with
// errors.Is.
var ErrConfig = errors.New("oncesqlx: invalid configuration")

// configError returns an error that matches ErrConfig (and what a %w in
// format wraps) and reads "oncesqlx: <detail>".
func configError(format string, args ...any) error {
	return configerr.New(ErrConfig, "oncesqlx", format, args...)
}
