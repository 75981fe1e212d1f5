package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/once-go/once/cmd/once/internal/coord"
	"github.com/once-go/once/lease/redislease"
)

// backendFlags are the flags every lease command has.
type backendFlags struct {
	fs                       *flagSet
	driver, dsn, table, mode string
	create, holds            bool // see backendConfig
	releaseHold              optionalDuration
	redis                    coord.RedisOptions // registered by addRedisFlags (hold)
}

// optionalDuration is a duration flag that records whether it was given.
type optionalDuration struct {
	d   time.Duration
	set bool
}

func (o *optionalDuration) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.d.String()
}

func (o *optionalDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration such as 1s or 500ms")
	}
	o.d, o.set = d, true
	return nil
}

// addReleaseHold registers --release-hold (lease hold).
func (f *backendFlags) addReleaseHold(fs *flagSet) {
	var defaults []string
	for _, n := range coord.Names() {
		if d := coord.Lookup(n); d.ReleaseHold > 0 {
			defaults = append(defaults, fmt.Sprintf("%s: default %v", n, d.ReleaseHold))
		}
	}
	fs.Var(&f.releaseHold, "release-hold", "how long (`DUR`) a machine ID stays taken after hold releases it ("+
		strings.Join(defaults, "; ")+"); 0 frees it at once. Every holder sharing the NAME or prefix must use the "+
		"same value: 0 when holders that delete on release (the Elixir library) share it")
}

// addRedisFlags registers the Redis flags of lease hold.
func (f *backendFlags) addRedisFlags(fs *flagSet) {
	fs.IntVar(&f.redis.WaitReplicas, "wait-replicas", 0, "Redis: count a claim or renewal only once `N` replicas of the master "+
		"acknowledged it (WAIT), so that a failover to one of them keeps the lease; set it to the number of replicas a failover "+
		"may promote. A master with more connected replicas than N is refused unless --accept-replica-loss")
	fs.BoolVar(&f.redis.AcceptReplicaLoss, "accept-replica-loss", false, "Redis: run on a master with more replicas than "+
		"--wait-replicas (or whose replicas cannot be read), accepting that a failover to a replica that missed the latest claim "+
		"or renewal frees a machine ID still in use, and another process can take it")
	fs.StringVar(&f.redis.Sharing, "sharing", "", "Redis: whether NAME is shared with the Elixir library, whose release deletes "+
		"a lease (`S`): by-name (the default: a hash named "+redislease.ElixirName+" is), elixir (hash mode only), go-only")
}

func addBackendFlags(fs *flagSet, modes bool) *backendFlags {
	f := &backendFlags{fs: fs}
	fs.StringVar(&f.driver, "driver", "", "the coordinator `D`: "+strings.Join(coord.Names(), ", ")+" (required)")
	fs.StringVar(&f.dsn, "dsn", "", "where the coordinator is, as the driver expects it (`DSN`; required but for kubernetes; see below)")
	fs.StringVar(&f.table, "table", "", "the lease table (SQL), NAME (Redis), key prefix (etcd) or Lease name prefix (kubernetes) `T` (see below)")
	if modes {
		fs.StringVar(&f.mode, "mode", "", "the Redis layout `MODE`: hash (Redis >= 8, Valkey >= 9) or key (any Redis); required with --driver redis")
	}
	return f
}

// open validates the flags and opens the backend. With check, it also
// checks the connection (coord.Driver.Connect): the commands that run once
// (ls, free, migrate) fail fast on an unreachable coordinator; hold leaves
// the retries to the lease manager, which keeps trying for the acquire
// timeout.
func (f *backendFlags) open(ctx context.Context, check bool) (*coord.Backend, error) {
	d := coord.Lookup(f.driver)
	switch {
	case f.driver == "":
		return nil, usageError(fmt.Errorf("--driver is required (%s)", strings.Join(coord.Names(), ", ")))
	case d == nil:
		return nil, usageError(fmt.Errorf("--driver %s: %s", quoteValue(f.driver), coord.Unknown(f.driver)))
	case f.dsn == "" && !d.DSNOptional:
		return nil, usageError(errors.New("--dsn is required"))
	case d.Modes == nil && f.mode != "":
		return nil, usageError(fmt.Errorf("--driver %s takes no --mode", f.driver))
	case d.Modes != nil && !slices.Contains(d.Modes, f.mode):
		if f.mode == "" {
			return nil, usageError(fmt.Errorf("--driver %s needs --mode %s", f.driver, strings.Join(d.Modes, "|")))
		}
		return nil, usageError(fmt.Errorf("--mode %s: unknown mode (want %s)", quoteValue(f.mode), strings.Join(d.Modes, ", ")))
	}
	for _, name := range coord.RedisFlagNames {
		if f.driver != "redis" && given(f.fs, name) {
			return nil, usageError(fmt.Errorf("--driver %s takes no --%s (a Redis flag)", f.driver, name))
		}
	}
	cfg := coord.Config{DSN: f.dsn, Table: f.table, Mode: f.mode, Create: f.create, Holds: f.holds, Redis: f.redis}
	if f.releaseHold.set {
		switch {
		case d.ReleaseHold == 0:
			return nil, usageError(fmt.Errorf("--driver %s takes no --release-hold", f.driver))
		case f.releaseHold.d < 0:
			return nil, usageError(fmt.Errorf("--release-hold %v: must not be negative (0 frees a released ID at once)", f.releaseHold.d))
		}
		cfg.ReleaseHold = &f.releaseHold.d
	}
	if check {
		return d.Connect(ctx, cfg)
	}
	return d.Open(ctx, cfg)
}

// usageError marks err as a bad command line (exit status 2).
func usageError(err error) error { return coord.UsageError{Err: err} }

// defaultDuration is the lease duration a manager asks for on the
// driver's strategy when --duration is not given.
func (f *backendFlags) defaultDuration() time.Duration {
	return coord.Lookup(f.driver).DefaultDuration()
}

// fail reports err from a lease command: exit 2 for a usage error, else 1.
func fail(e *env, fs *flagSet, c *command, err error) int {
	var u coord.UsageError
	if errors.As(err, &u) {
		return fs.usageError(c, "%v", u.Err)
	}
	errorf(e, "once "+c.name, "%v", err)
	return exitFail
}

func leaseCommands() []*command {
	return []*command{leaseMigrateCmd, leaseHoldCmd, leaseLsCmd, leaseFreeCmd}
}

var leaseMigrateCmd = &command{
	name:    "lease migrate",
	usage:   "lease migrate --driver postgres|mysql|sqlite --dsn DSN [--table T]",
	summary: "create the lease table and fill it with its 512 rows",
	about: `Creates the lease table (if missing) and inserts any of its 512 rows that
are missing; existing rows, and the leases in them, are left alone, so
running it twice (or from several processes at once) is harmless. Prints
nothing on success. Redis needs no migration: with --driver redis it says so
on standard error and exits 0.`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, c.name)
		bf := addBackendFlags(fs, false)
		bf.create = true
		return fs, func(args []string) int {
			if len(args) > 0 {
				return fs.usageError(c, "unexpected argument %s", quoteValue(args[0]))
			}
			if d := coord.Lookup(bf.driver); d != nil && d.NoMigrate {
				errorf(e, "once "+c.name, "--driver %s needs no migration", bf.driver)
				return exitOK
			}
			ctx, cancel := signalContext()
			defer cancel()
			be, err := bf.open(ctx, true)
			if err != nil {
				return fail(e, fs, c, err)
			}
			defer be.Close()
			if err := be.Migrate(ctx); err != nil {
				return fail(e, fs, c, err)
			}
			return exitOK
		}
	},
}
