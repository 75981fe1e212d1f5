package configerr

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNew(t *testing.T) {
	sentinel, cause := errors.New("x: invalid configuration"), errors.New("boom")
	err := New(sentinel, "x", "nil db: %w", cause)
	require.ErrorIs(t, err, sentinel)
	require.ErrorIs(t, err, cause)
	require.EqualError(t, err, "x: nil db: boom")
	require.NotErrorIs(t, New(sentinel, "x", "plain"), cause, "an error without %w matches an unrelated cause")
}
