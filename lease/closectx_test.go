package lease_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease/driver"
)

// TestCloseReturnsAtItsContext: Close returns its context's error when
// the context ends before the release does.
func TestCloseReturnsAtItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, 512)
		m := r.start()
		r.s.set(func(f *fake) {
			f.release = func(ctx context.Context, _ driver.Lease) error { <-ctx.Done(); return ctx.Err() }
		})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		t0 := time.Now()
		if err := m.Close(ctx); !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) != time.Second {
			t.Errorf("Close = %v after %v, want the context's deadline after 1s", err, time.Since(t0))
		}
	})
}
