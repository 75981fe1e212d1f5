package lease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// TestKeyMismatchNamesHolders: Start with RefuseKeyMismatch names up to
// three live holders with another key fingerprint ("-" for a holder that
// recorded no name), then how many more; holders with this process's
// fingerprint or none are not counted, and with no state file no machine
// ID is skipped as the process's own. The listing is bounded by the
// acquire timeout, or by the release timeout when there is none.
func TestKeyMismatchNamesHolders(t *testing.T) {
	other := []driver.Slot{
		{MachineID: 1, Holder: "a", Fingerprint: "f1"},
		{MachineID: 2, Holder: "", Fingerprint: "f2"},
		{MachineID: 3, Holder: "c", Fingerprint: "f3"},
		{MachineID: 4, Holder: "d", Fingerprint: "f4"},
	}
	named := "machine ID 1 (holder a, key fingerprint f1), machine ID 2 (holder -, key fingerprint f2), machine ID 3 (holder c, key fingerprint f3)"
	for _, c := range []struct {
		name    string
		others  int
		timeout time.Duration // Options.AcquireTimeout
		want    string
		bound   time.Duration // the listing's deadline
	}{
		{"three", 3, 10 * time.Second, "3 live holder(s)", 10 * time.Second},
		{"four", 4, -1, "4 live holder(s)", driver.DefaultReleaseTimeout},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, err := nonce.New(nonce.Config{Epoch: bubbleEpoch, BaseKey: []byte("the-key-of-this-test-0123456789abcdef")})
				if err != nil {
					t.Fatal(err)
				}
				r := newRig(t, 512)
				r.opts.Factories = []*nonce.Factory{f}
				r.opts.RefuseKeyMismatch = true
				r.opts.AcquireTimeout = c.timeout
				slots := append([]driver.Slot{
					{MachineID: 7, Holder: "same", Fingerprint: f.Fingerprint()},
					{MachineID: 8, Holder: "none"},
				}, other[:c.others]...)
				bound := time.Duration(-1) // the listing's deadline, from when it was made; -1: none
				s := listing{fake: r.s, list: func(ctx context.Context) ([]driver.Slot, error) {
					if dl, ok := ctx.Deadline(); ok {
						bound = time.Until(dl)
					}
					return slots, nil
				}}
				_, err = lease.Start(r.with(t.Context()), s, r.opts)
				msg := ""
				if err != nil {
					msg = err.Error()
				}
				want := c.want + " in the pool use another base key than this process (key fingerprint " + f.Fingerprint() + "): " + named
				if c.others > 3 {
					want += " and 1 more;"
				} else {
					want += ";"
				}
				if !errors.Is(err, lease.ErrConfig) || !strings.Contains(msg, want) {
					t.Errorf("Start: %v\nwant ErrConfig with %q", err, want)
				}
				if bound != c.bound {
					t.Errorf("listing bounded by %v, want %v", bound, c.bound)
				}
			})
		})
	}
}

// TestRefuseKeyMismatchNeedsOneKey: factories with two different base
// keys share no fingerprint, which RefuseKeyMismatch needs.
func TestRefuseKeyMismatchNeedsOneKey(t *testing.T) {
	var fs []*nonce.Factory
	for _, key := range []string{"the-first-key-of-this-test-0123456789", "the-other-key-of-this-test-012345678"} {
		f, err := nonce.New(nonce.Config{BaseKey: []byte(key)})
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	r := newRig(t, 512)
	r.opts.Factories = fs
	r.opts.RefuseKeyMismatch = true
	_, err := lease.Start(r.with(t.Context()), listing{fake: r.s}, r.opts)
	if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "the same in all") {
		t.Errorf("Start: %v, want ErrConfig: factories need one base key", err)
	}
}
