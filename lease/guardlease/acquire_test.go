package guardlease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/guardlease"
)

// fixedID is a deterministic strategy that names one machine ID, valid or
// not.
type fixedID struct{ id int }

func (fixedID) Name() string        { return "fixed" }
func (fixedID) Deterministic() bool { return true }
func (f fixedID) Acquire(context.Context, time.Duration) (driver.Lease, error) {
	return driver.Lease{MachineID: f.id, Token: "fixed"}, nil
}
func (fixedID) Renew(_ context.Context, l driver.Lease, _ time.Duration) (driver.Lease, error) {
	return l, nil
}
func (fixedID) Release(context.Context, driver.Lease) error { return nil }

// scriptedCoordinator answers Claim as claim says and records the IDs it
// was asked for.
type scriptedCoordinator struct {
	claim  func(id int) (driver.Lease, error)
	claims []int
}

func (*scriptedCoordinator) Name() string        { return "scripted" }
func (*scriptedCoordinator) Deterministic() bool { return false }
func (*scriptedCoordinator) Acquire(context.Context, time.Duration) (driver.Lease, error) {
	return driver.Lease{}, errors.New("scripted coordinator: Acquire not expected")
}
func (*scriptedCoordinator) Renew(_ context.Context, l driver.Lease, _ time.Duration) (driver.Lease, error) {
	return l, nil
}
func (*scriptedCoordinator) Release(context.Context, driver.Lease) error { return nil }
func (c *scriptedCoordinator) Claim(_ context.Context, id int, _ time.Duration) (driver.Lease, error) {
	c.claims = append(c.claims, id)
	return c.claim(id)
}

// TestAcquireOutcomes: what Acquire returns for each answer of the
// coordinator's Claim, and for a fixed strategy whose ID is out of range
// (refused before any claim).
func TestAcquireOutcomes(t *testing.T) {
	unknown := errors.New("connection reset")
	for _, c := range []struct {
		name      string
		id        int
		claim     func(id int) (driver.Lease, error)
		wantErr   []error
		wantMsg   string
		wantLease driver.Lease // returned beside the error, for the manager to release
		claims    int
	}{
		{
			name:      "claimed",
			id:        0,
			claim:     func(id int) (driver.Lease, error) { return driver.Lease{MachineID: id, Token: "t0"}, nil },
			wantLease: driver.Lease{MachineID: 0, Token: "t0"},
			claims:    1,
		},
		{
			name:    "ID above range",
			id:      512,
			wantErr: []error{driver.ErrConfig},
			wantMsg: "guardlease: strategy fixed gave machine ID 512, outside 0..511",
		},
		{
			name:    "negative ID",
			id:      -1,
			wantErr: []error{driver.ErrConfig},
			wantMsg: "guardlease: strategy fixed gave machine ID -1, outside 0..511",
		},
		{
			name:    "held elsewhere",
			id:      9,
			claim:   func(int) (driver.Lease, error) { return driver.Lease{}, driver.ErrConflict },
			wantErr: []error{driver.ErrConflict},
			wantMsg: "guardlease: machine ID 9 (from fixed) is in use elsewhere: the test table holds it for another process",
			claims:  1,
		},
		{
			name: "outcome unknown",
			id:   9,
			claim: func(id int) (driver.Lease, error) {
				return driver.Lease{MachineID: id, Token: "t9"}, errors.Join(driver.ErrRetry, unknown)
			},
			wantErr:   []error{driver.ErrRetry, unknown},
			wantMsg:   "guardlease: claiming machine ID 9 in the test table: ",
			wantLease: driver.Lease{MachineID: 9, Token: "t9"},
			claims:    1,
		},
		{
			name:      "claimed as another ID",
			id:        9,
			claim:     func(int) (driver.Lease, error) { return driver.Lease{MachineID: 10, Token: "t10"}, nil },
			wantErr:   []error{driver.ErrConfig},
			wantMsg:   "guardlease: the test table claimed machine ID 9 as 10",
			wantLease: driver.Lease{MachineID: 10, Token: "t10"},
			claims:    1,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			coord := &scriptedCoordinator{claim: c.claim}
			s, err := guardlease.New(fixedID{c.id}, coord, "the test table")
			if err != nil {
				t.Fatal(err)
			}
			l, err := s.Acquire(t.Context(), time.Minute)
			if len(c.wantErr) == 0 && err != nil {
				t.Fatalf("Acquire: %v", err)
			}
			for _, want := range c.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("Acquire: %v, want it to match %v", err, want)
				}
			}
			if err != nil && !strings.HasPrefix(err.Error(), c.wantMsg) {
				t.Errorf("Acquire: %q, want it to start with %q", err, c.wantMsg)
			}
			if l != c.wantLease {
				t.Errorf("Acquire returned lease %+v, want %+v", l, c.wantLease)
			}
			if len(coord.claims) != c.claims || (c.claims > 0 && coord.claims[0] != c.id) {
				t.Errorf("claims %v, want %d of ID %d", coord.claims, c.claims, c.id)
			}
		})
	}
}
