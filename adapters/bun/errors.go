package oncebun

import (
	"errors"

	"github.com/once-go/once/adapters/internal/configerr"
)

// ErrConfig is the category of set-up mistakes: a nil database, query or
// model, a model inserted before [Register] prepared it, an unsupported
// dialect. Match it with errors.Is.
var ErrConfig = errors.New("oncebun: invalid configuration")

// ErrPresetID is the error of an insert (or [Fill]) whose model holds an
// ID set before it in a field the adapter fills (such as an "id" a client
// sent, decoded into the model), when neither the insert's context
// ([WithPresetIDs]) nor the field (`once:"preset"`) keeps preset IDs.
// Nothing is written. The error also matches once.ErrInvalid. Match it
// with errors.Is.
var ErrPresetID = errors.New("oncebun: ID set before the insert")

// configError returns an error that matches ErrConfig (and what a %w in
// format wraps) and reads "oncebun: <detail>".
func configError(format string, args ...any) error {
	return configerr.New(ErrConfig, "oncebun", format, args...)
}
