package migrations

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
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

// ErrForeignFunction reports that [InstallFunctions] or [DropFunctions]
// refused to touch a function of one of the names of [FunctionNames] that
// once did not install: its comment does not start "once: ". Match it with
// [errors.Is]; the message names the function and the schema (database).
var ErrForeignFunction = errors.New("migrations: function that once did not install")

type foreignErr struct {
	d            Dialect
	what, schema string
	functions    []string
}

func (e *foreignErr) Error() string {
	where := "schema"
	if e.d == MySQL {
		where = "database"
	}
	verb := "replace"
	if e.what == "drop" {
		verb = "drop"
	}
	it := "it"
	if len(e.functions) > 1 {
		it = "them"
	}
	return fmt.Sprintf("migrations: %s %s has %s, which once did not install (its comment does not start \"once: \"): refusing to %s %s; drop or rename %s, or use another %s",
		where, sqlIdent(e.d, e.schema), strings.Join(e.functions, ", "), verb, it, it, where)
}

func (e *foreignErr) Unwrap() error { return ErrForeignFunction }

// sqlIdent spells a schema or database name as d quotes an identifier, so
// that it can be pasted into SQL; a name with a character that does not
// print is Go-quoted instead.
func sqlIdent(d Dialect, s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	if d == MySQL {
		return "`" + strings.ReplaceAll(s, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
