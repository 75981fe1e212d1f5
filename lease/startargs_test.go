package lease_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// TestStartRejectsBadArguments: nil and typed-nil arguments, and a factory
// that generates before any lease, are configuration errors naming the
// argument, not panics, and claim nothing.
func TestStartRejectsBadArguments(t *testing.T) {
	var typedNil *nonce.Factory
	generating, err := nonce.New(nonce.Config{Fixed: true})
	if err != nil {
		t.Fatal(err)
	}
	var nilStrategy *fake
	for _, c := range []struct {
		name string
		ctx  context.Context
		s    driver.Strategy
		fs   []*nonce.Factory
		want string
	}{
		{"nil context", nil, nil, nil, "nil context"},
		{"nil strategy", t.Context(), nil, nil, "nil Strategy"},
		{"typed-nil strategy", t.Context(), nilStrategy, nil, "nil Strategy"},
		{"typed-nil factory", t.Context(), nil, []*nonce.Factory{typedNil}, "Factories[0] is nil"},
		{"Fixed factory", t.Context(), nil, []*nonce.Factory{generating}, "Factories[0] is already generating"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(&journal{}, 4)
			s := c.s
			if s == nil && c.name != "nil strategy" {
				s = f
			}
			if c.fs == nil {
				ids, err := nonce.New(nonce.Config{})
				if err != nil {
					t.Fatal(err)
				}
				c.fs = []*nonce.Factory{ids}
			}
			m, err := lease.Start(c.ctx, s, lease.Options{Factories: c.fs, Logger: quiet})
			if m != nil || !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Start = %v, %v; want ErrConfig naming %q", m, err, c.want)
			}
			if n := f.mem.Held(); n != 0 {
				t.Errorf("%d machine IDs held after a rejected Start", n)
			}
		})
	}
}
