package redislease_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

// deadlinePassed is a context whose deadline has passed while its timer
// has not fired yet: Deadline is in the past, Err and Done say nothing.
// The client's socket deadline, taken from Deadline, fires at once.
type deadlinePassed struct{ context.Context }

func (deadlinePassed) Deadline() (time.Time, bool) { return time.Now().Add(-time.Second), true }

// TestDeadlineBeforeContextTimer: a command cut short by the socket
// deadline the context's deadline set, before the context's own timer
// fired, is ErrRetry wrapping context.DeadlineExceeded (not only the
// client's i/o timeout).
func TestDeadlineBeforeContextTimer(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		s := strategy(t, c, tg.mode, namespace(t, c), false)
		ctx := deadlinePassed{t.Context()}
		if _, err := s.Acquire(ctx, time.Minute); !errors.Is(err, driver.ErrRetry) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire past the context's deadline: %v; want ErrRetry wrapping context.DeadlineExceeded", err)
		}
	})
}
