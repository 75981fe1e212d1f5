package oncebun

import (
	"errors"

	"github.com/once-go/once/adapters/internal/configerr"
)

// ErrConfig is the category of set-up mistakes: a nil database, query or
// model, a model inserted before [Register] prepared it, an unsupported
// dialect. Match it with errors.Is.
var ErrConfig = errors.New("oncebun: invalid configuration")

// configError returns an error that matches ErrConfig (and what a %w in
// format wraps) and reads "oncebun: <detail>".
func configError(format string, args ...any) error {
	return configerr.New(ErrConfig, "oncebun", format, args...)
}
