package oncegorm

import (
	"errors"

	"github.com/once-go/once/adapters/internal/configerr"
)

// ErrConfig is the category of set-up mistakes: a nil database or model, an
// unsupported dialect. Match it with errors.Is.
var ErrConfig = errors.New("oncegorm: invalid configuration")

// ErrPresetID is the error of an insert whose model holds an ID set
// before it in a field the plugin fills (such as an "id" a client sent,
// decoded into the model), when neither the insert ([WithPresetIDs]) nor
// the field (`once:"preset"`) keeps preset IDs. Nothing is written. The
// error also matches once.ErrInvalid. Match it with errors.Is.
var ErrPresetID = errors.New("oncegorm: ID set before the insert")

// configError returns an error that matches ErrConfig (and what a %w in
// format wraps) and reads "oncegorm: <detail>".
func configError(format string, args ...any) error {
	return configerr.New(ErrConfig, "oncegorm", format, args...)
}
