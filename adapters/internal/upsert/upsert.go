// Package upsert tells the ORM adapters which row each struct of an upsert
// was written to. The adapters send every row with a key (filled or set by
// the caller) and read back the keys of the rows the statement wrote
// (RETURNING), in statement order. A row inserted returns the key it was
// sent with; a row that updated an existing one returns that row's key; a
// row skipped (DO NOTHING, INSERT IGNORE, a DO UPDATE whose WHERE is
// false) returns nothing.
package upsert

import (
	"errors"
	"fmt"

	"github.com/once-go/once/once"
)

// ErrAmbiguous is the error of [Match] when the keys read back cannot be
// told apart between the rows that sent them.
var ErrAmbiguous = errors.New("the keys read back cannot be matched to their rows")

// Match returns, for the rows of a statement sent with the keys sent (in
// statement order), the index in got of the key each row was written to,
// or -1 for a row that returned none: got holds the keys the statement
// returned, in statement order. When every row returned a key, row i's is
// got[i]. Otherwise a returned key equal to the key a row was sent with
// anchors that row (it was inserted), the other keys (of existing rows the
// statement updated) go to the rows between two anchors when there are as
// many of them as rows there, and a row with none was not written under
// the key it was sent with. It returns an error wrapping [ErrAmbiguous]
// when got cannot be the result of sent (more keys than rows, a row
// returning the key a later row was sent with) or does not say which rows
// were skipped (fewer keys of existing rows than rows between two anchors).
func Match(sent, got []once.ID) ([]int, error) {
	n := len(sent)
	if len(got) > n {
		return nil, fmt.Errorf("%w: %d keys for %d rows", ErrAmbiguous, len(got), n)
	}
	at := make(map[once.ID]int, n)
	for i, id := range sent {
		at[id] = i
	}
	rows := make([]int, n)
	if len(got) == n {
		for i, id := range got {
			// A later row may update the row an earlier one inserted (MySQL
			// does, within one statement); an earlier row cannot return
			// the key a later one brings.
			if j, ok := at[id]; ok && j > i {
				return nil, fmt.Errorf("%w: row %d returned the key row %d was sent with", ErrAmbiguous, i, j)
			}
			rows[i] = i
		}
		return rows, nil
	}
	for i := range rows {
		rows[i] = -1
	}
	next := 0         // the first row after the last anchor
	var pending []int // indexes in got of keys of existing rows since then
	place := func(end int) error {
		if len(pending) == 0 {
			return nil // the rows next..end-1 were not written
		}
		if len(pending) != end-next {
			return fmt.Errorf("%w: %d keys of existing rows for rows %d to %d", ErrAmbiguous, len(pending), next, end-1)
		}
		copy(rows[next:end], pending)
		pending = pending[:0]
		return nil
	}
	for g, id := range got {
		j, ok := at[id]
		if !ok || j < next {
			// An existing row's key, or the key of a row this statement
			// inserted earlier and a later row updated.
			pending = append(pending, g)
			continue
		}
		if err := place(j); err != nil {
			return nil, err
		}
		rows[j] = g
		next = j + 1
	}
	if err := place(n); err != nil {
		return nil, err
	}
	return rows, nil
}

// Repeated returns the first two rows (i < j) sent with the same key, and
// whether there are any.
func Repeated(sent []once.ID) (i, j int, ok bool) {
	at := make(map[once.ID]int, len(sent))
	for j, id := range sent {
		if i, ok := at[id]; ok {
			return i, j, true
		}
		at[id] = j
	}
	return 0, 0, false
}
