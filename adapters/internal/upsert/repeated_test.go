package upsert

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRepeated(t *testing.T) {
	for _, c := range []struct {
		name string
		sent []uint64
		i, j int
		ok   bool
	}{
		{"none", nil, 0, 0, false},
		{"distinct", []uint64{1, 2, 3}, 0, 0, false},
		{"adjacent", []uint64{1, 2, 2}, 1, 2, true},
		{"apart, first pair", []uint64{5, 1, 2, 1, 5}, 1, 3, true},
	} {
		i, j, ok := Repeated(ids(c.sent...))
		assert.Equal(t, []any{c.i, c.j, c.ok}, []any{i, j, ok}, c.name)
	}
}
