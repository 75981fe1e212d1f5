package faultsuite

import (
	"context"
	"io"
	"log"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testonly"
	"github.com/once-go/once/lease"
)

// holderEnv, set to 1, turns the test binary into a holder process (see
// holder.go): the process cases re-execute the test binary itself, so
// the suite needs no separate build step.
const holderEnv = "FAULTSUITE_HOLDER"

// Main is the TestMain of a package running the suite on coords: it sets
// the table, then either runs the tests or, in a holder process (see
// holder.go), the holder.
func Main(m *testing.M, coords []Coordinator) {
	testonly.SkipPackage()
	coordinators = coords
	// The faults make the drivers log every broken connection; the tests
	// check outcomes, not driver chatter.
	mysql.SetLogger(log.New(io.Discard, "", 0))
	redis.SetLogger(quiet{})
	if os.Getenv(holderEnv) == "1" {
		os.Exit(holderMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// suiteHandoffSkew is the HandoffSkew of the suite's managers whose clocks
// are not skewed on purpose: with 2s leases the margin is 200ms, and the
// default 1s allowance would make a holder on a coordinator that reports no
// clock (etcd) wait 2*HandoffSkew - margin = 1.8s, its whole safe window,
// before its first value. The hand-off tests, whose clocks are skewed by up
// to 950ms, ask for handoffSkew.
const suiteHandoffSkew = 100 * time.Millisecond

// handoffSkew is the HandoffSkew of the hand-off tests: the default
// allowance, 1s.
const handoffSkew = time.Second

// short marks o for the suite's short leases (see testonly.ShortLeases):
// every manager of the suite, in-process or holder, starts with them.
func short(o lease.Options) lease.Options {
	testonly.ShortLeases(&o)
	return o
}
