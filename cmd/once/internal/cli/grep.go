package cli

import (
	"strings"

	"github.com/once-go/once/once"
)

// minGrepDigits is how many digits a number in text needs to be taken for
// a stored ID by inspect --grep --int: 10^14 is a timestamp of about seven
// hours after the epoch; shorter numbers in logs are counts, ports and
// durations.
const minGrepDigits = 15

// find returns the IDs in text (inspect --grep): the words (runs of
// letters, digits, "_" and "-") that parse as an ID with a prefix (--prefix
// P when given, else any), and with --int the numbers of at least
// minGrepDigits digits. Bare url64, hex32 and hex words are not taken: an
// English word of 11 letters is one.
func (p *valueParser) find(text string) []string {
	var ids []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-')
	}) {
		if p.isID(w) {
			ids = append(ids, w)
		}
	}
	return ids
}

// parseFound parses an ID that find found.
func (p *valueParser) parseFound(w string) (once.ID, error) {
	if p.opts.Prefix == "" && !isDecimal(strings.TrimLeft(w, "-")) {
		q := *p
		q.asInt = false // the word after the prefix is read by its shape, as prefixOf did
		return q.parseAs(w, p.prefixOf(w))
	}
	return p.parse(w)
}

// isID reports whether the word w is an ID for find.
func (p *valueParser) isID(w string) bool {
	if p.asInt && len(strings.TrimLeft(w, "-")) >= minGrepDigits && isDecimal(strings.TrimLeft(w, "-")) {
		_, err := p.parseAs(w, "")
		return err == nil
	}
	if p.opts.Prefix != "" {
		if !strings.HasPrefix(w, p.opts.Prefix) {
			return false
		}
		_, err := p.parseAs(w, p.opts.Prefix)
		return err == nil
	}
	return p.prefixOf(w) != ""
}

// prefixOf returns the prefix of w, a lowercase word and "_" (usr_, acct_)
// after which the rest of w parses, "" when there is none.
func (p *valueParser) prefixOf(w string) string {
	for i := 1; i < len(w) && i <= maxPrefix; i++ {
		c := w[i-1]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return ""
		}
		if w[i-1] != '_' {
			continue
		}
		q := *p
		q.asInt = false
		pre := p.basePrefix(w[:i])
		if _, err := q.parseAs(w, pre); err == nil {
			return pre
		}
	}
	return ""
}
