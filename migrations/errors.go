package migrations

import (
	"errors"
	"strconv"
)

// ErrConfig reports a bad argument: an unknown dialect, one that
// contradicts the driver, an invalid table name, or a table whose id is
// not a unique key ([CheckKey]). Match it with [errors.Is]; the message
// carries the detail.
var ErrConfig = errors.New("migrations: invalid configuration")

type configErr struct{ msg string }

func (e *configErr) Error() string { return "migrations: " + e.msg }
func (e *configErr) Unwrap() error { return ErrConfig }

func configError(msg string) error { return &configErr{msg: msg} }

// quote quotes s for an error message, cut to about 40 bytes.
func quote(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}
