package configerr

import (
	"errors"
	"testing"
)

func TestNew(t *testing.T) {
	sentinel, cause := errors.New("x: invalid configuration"), errors.New("boom")
	err := New(sentinel, "x", "nil db: %w", cause)
	if !errors.Is(err, sentinel) || !errors.Is(err, cause) || err.Error() != "x: nil db: boom" {
		t.Fatalf("%v: want x: nil db: boom matching the sentinel and the cause", err)
	}
	if errors.Is(New(sentinel, "x", "plain"), cause) {
		t.Fatal("an error without %w matches an unrelated cause")
	}
}
