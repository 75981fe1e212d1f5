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

func TestNewIs(t *testing.T) {
	a, b, other := errors.New("a"), errors.New("b"), errors.New("other")
	err := NewIs([]error{a, b}, "x", "preset %s", "ID")
	require.ErrorIs(t, err, a)
	require.ErrorIs(t, err, b)
	require.NotErrorIs(t, err, other)
	require.EqualError(t, err, "x: preset ID")
}
