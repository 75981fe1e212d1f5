package upsert

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/once-go/once/once"
)

func ids(vs ...uint64) []once.ID {
	out := make([]once.ID, len(vs))
	for i, v := range vs {
		out[i] = once.FromUint64(v)
	}
	return out
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		name      string
		sent, got []once.ID
		want      []once.ID // nil: ErrAmbiguous
	}{
		{"all inserted", ids(1, 2, 3), ids(1, 2, 3), ids(1, 2, 3)},
		{"DO UPDATE, one existing", ids(1, 2, 3), ids(1, 90, 3), ids(1, 90, 3)},
		{"DO UPDATE, the same row twice (MySQL)", ids(1, 2), ids(1, 1), ids(1, 1)},
		{"DO NOTHING, one skipped", ids(1, 2, 3), ids(1, 3), ids(1, 0, 3)},
		{"DO NOTHING, all skipped", ids(1, 2), nil, ids(0, 0)},
		{"one row skipped", ids(1), nil, ids(0)},
		{"one row updated", ids(1), ids(90), ids(90)},
		{"WHERE false for one, DO UPDATE for another, apart", ids(1, 2, 3, 4), ids(1, 90, 3), ids(1, 90, 3, 0)},
		{"updated at the end", ids(1, 2, 3), ids(1, 2, 90), ids(1, 2, 90)},
		{"updated then skipped, together", ids(1, 2, 3), ids(90, 3), nil},
		{"the same row twice, one skipped: which?", ids(1, 2, 3), ids(1, 1), nil},
		{"the same row twice, then skipped", ids(1, 2, 3, 4), ids(1, 1, 4), nil},
		{"the same row twice, then inserted", ids(1, 2, 3), ids(1, 1, 3), ids(1, 1, 3)},
		{"out of order", ids(1, 2, 3), ids(3, 1, 2), nil},
		{"out of order, one skipped", ids(1, 2, 3), ids(3, 1), nil},
		{"swapped", ids(1, 2), ids(2, 1), nil},
		{"too many", ids(1), ids(1, 2), nil},
	} {
		rows, err := Match(c.sent, c.got)
		if c.want == nil {
			assert.ErrorIs(t, err, ErrAmbiguous, "%s: rows %v", c.name, rows)
			continue
		}
		var got []once.ID
		for _, r := range rows {
			if r < 0 {
				got = append(got, once.ID{})
			} else {
				got = append(got, c.got[r])
			}
		}
		if assert.NoError(t, err, c.name) {
			assert.Equal(t, c.want, got, c.name)
		}
	}
}
