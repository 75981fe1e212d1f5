package oncegorm

import (
	"errors"

	"github.com/once-go/once/adapters/internal/configerr"
)

// ErrConfig is the category of set-up mistakes: a nil database or model, an
// unsupported dialect. Match it with errors.Is.
var ErrConfig = errors.New("oncegorm: invalid configuration")

// configError returns an error that matches ErrConfig (and what a %w in
// format wraps) and reads "oncegorm: <detail>".
func configError(format string, args ...any) error {
	return configerr.New(ErrConfig, "oncegorm", format, args...)
}
