// Package msg writes the command's messages: one line per error, naming
// who reports it, quoting at most a short piece of untrusted input.
package msg

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Errorf writes one line "<who>: <message>" to w; newlines and tabs in the
// message become spaces.
func Errorf(w io.Writer, who, format string, args ...any) {
	m := fmt.Sprintf(format, args...)
	m = strings.NewReplacer("\n", " ", "\t", " ").Replace(m)
	fmt.Fprintf(w, "%s: %s\n", who, m)
}

// MaxQuote is how many bytes of user input a message quotes.
const MaxQuote = 40

// Quote renders untrusted input for a message: Go-quoted (one line,
// escapes for control bytes), at most MaxQuote bytes of it.
func Quote(s string) string {
	if len(s) > MaxQuote {
		return strconv.Quote(s[:MaxQuote]) + "..."
	}
	return strconv.Quote(s)
}
