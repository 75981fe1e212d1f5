package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/once-go/once/lease/driver"
)

// A leaseDriver opens a lease coordinator for the lease commands. Each
// driver lives in its own file (lease_sql.go, lease_redis.go, lease_etcd.go,
// lease_k8s.go) and registers itself from init with registerDriver, so
// adding one is one new file.
type leaseDriver struct {
	name  string   // the --driver value
	dsn   string   // what --dsn looks like, for the help
	modes []string // the accepted --mode values; nil: --mode is not accepted
	// noMigrate: the coordinator needs no migration (lease migrate says so).
	noMigrate bool
	// dsnOptional: an empty --dsn means the driver's default place.
	dsnOptional bool
	// releaseHold is the default of --release-hold (lease hold); 0: the
	// driver takes no --release-hold.
	releaseHold time.Duration
	// leaseDuration is the lease its strategy asks for by default
	// (driver.DurationDefaulter); 0: the manager's default.
	leaseDuration time.Duration
	// acquireTimeout is the default of --acquire-timeout (lease hold);
	// 0: the manager's default.
	acquireTimeout time.Duration
	// open prepares a client of the coordinator named by cfg. It makes no
	// request (backend.check does) and creates nothing (that is migrate).
	open func(ctx context.Context, cfg backendConfig) (*backend, error)
}

// backendConfig is what the common lease flags say.
type backendConfig struct {
	dsn   string
	table string // "" = the driver's default
	mode  string // "" unless the driver has modes
	// create: the command creates what is missing (migrate); the others
	// create nothing, not even an SQLite file.
	create bool
	// releaseHold is --release-hold when given, else nil (the driver's
	// default).
	releaseHold *time.Duration
	// holds: the command holds leases (hold); the others only read them
	// or release one (ls, free, migrate).
	holds bool
	// redis holds the Redis flags of lease hold (lease_redis.go).
	redis redisFlags
}

// backend is an opened coordinator.
type backend struct {
	strategy driver.Strategy
	// check makes one request: it tells a coordinator that cannot be
	// reached, or cannot serve leases, from one that can.
	check func(ctx context.Context) error
	// explain, if set, rewords an error of the strategy in terms of the
	// command line (its Go option names as the flags that set them).
	explain func(error) error
	// released, if set, reports a listed ID that was released and stays
	// taken for the strategy's release hold (etcd lists it so).
	released func(driver.Slot) bool
	// migrate creates what the coordinator needs (nil if noMigrate).
	migrate func(ctx context.Context) error
	close   func() error
}

var drivers = map[string]*leaseDriver{}

// registerDriver adds d; called from init.
func registerDriver(d *leaseDriver) { drivers[d.name] = d }

// driverNames lists the registered drivers, sorted.
func driverNames() []string {
	names := make([]string, 0, len(drivers))
	for n := range drivers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// driverHelp documents --driver, --mode and --dsn for each driver.
func driverHelp() string {
	var b strings.Builder
	b.WriteString("Drivers (--driver) and their --dsn:\n")
	for _, n := range driverNames() {
		d := drivers[n]
		mode := ""
		if d.modes != nil {
			mode = " --mode " + strings.Join(d.modes, "|")
		}
		fmt.Fprintf(&b, "  %-11s%s --dsn %s\n", n, mode, d.dsn)
	}
	b.WriteString(`--table names the lease table (SQL), NAME (Redis: the hash, or the hash
tag of the keys {NAME}:ID; default once_leases for both), the key prefix
(etcd) or the Lease name prefix (kubernetes).
`)
	return b.String()
}

// backendFlags are the flags every lease command has.
type backendFlags struct {
	fs                       *flagSet
	driver, dsn, table, mode string
	create, holds            bool // see backendConfig
	releaseHold              optionalDuration
	redis                    redisFlags // registered by addRedisFlags (hold)
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
	for _, n := range driverNames() {
		if d := drivers[n]; d.releaseHold > 0 {
			defaults = append(defaults, fmt.Sprintf("%s: default %v", n, d.releaseHold))
		}
	}
	fs.Var(&f.releaseHold, "release-hold", "how long (`DUR`) a machine ID stays taken after hold releases it ("+
		strings.Join(defaults, "; ")+"); 0 frees it at once. Every holder sharing the NAME or prefix must use the "+
		"same value: 0 when holders that delete on release (the Elixir library) share it")
}

// releaseHold is the ReleaseHold option of the Redis and etcd strategies
// for --release-hold: 0 (their default) when it is not given, negative
// (delete on release) for --release-hold 0.
func releaseHold(cfg backendConfig) time.Duration {
	switch {
	case cfg.releaseHold == nil:
		return 0
	case *cfg.releaseHold == 0:
		return -1
	}
	return *cfg.releaseHold
}

func addBackendFlags(fs *flagSet, modes bool) *backendFlags {
	f := &backendFlags{fs: fs}
	fs.StringVar(&f.driver, "driver", "", "the coordinator `D`: "+strings.Join(driverNames(), ", ")+" (required)")
	fs.StringVar(&f.dsn, "dsn", "", "where the coordinator is, as the driver expects it (`DSN`; required but for kubernetes; see below)")
	fs.StringVar(&f.table, "table", "", "the lease table (SQL), NAME (Redis), key prefix (etcd) or Lease name prefix (kubernetes) `T` (see below)")
	if modes {
		fs.StringVar(&f.mode, "mode", "", "the Redis layout `MODE`: hash (Redis >= 8, Valkey >= 9) or key (any Redis); required with --driver redis")
	}
	return f
}

// usageError is returned by backendFlags.open for a bad command line.
type usageError struct{ error }

// open validates the flags and opens the backend. With check, it also
// checks the connection, for up to pingTimeout: the commands that run once
// (ls, free, migrate) fail fast on an unreachable coordinator; hold leaves the
// retries to the lease manager, which keeps trying for the acquire timeout.
func (f *backendFlags) open(ctx context.Context, check bool) (*backend, error) {
	d := drivers[f.driver]
	switch {
	case f.driver == "":
		return nil, usageError{fmt.Errorf("--driver is required (%s)", strings.Join(driverNames(), ", "))}
	case d == nil:
		return nil, usageError{fmt.Errorf("--driver %s: unknown driver (want %s)", quoteValue(f.driver), strings.Join(driverNames(), ", "))}
	case f.dsn == "" && !d.dsnOptional:
		return nil, usageError{errors.New("--dsn is required")}
	case d.modes == nil && f.mode != "":
		return nil, usageError{fmt.Errorf("--driver %s takes no --mode", f.driver)}
	case d.modes != nil && !slices.Contains(d.modes, f.mode):
		if f.mode == "" {
			return nil, usageError{fmt.Errorf("--driver %s needs --mode %s", f.driver, strings.Join(d.modes, "|"))}
		}
		return nil, usageError{fmt.Errorf("--mode %s: unknown mode (want %s)", quoteValue(f.mode), strings.Join(d.modes, ", "))}
	}
	for _, name := range redisFlagNames {
		if f.driver != "redis" && given(f.fs, name) {
			return nil, usageError{fmt.Errorf("--driver %s takes no --%s (a Redis flag)", f.driver, name)}
		}
	}
	cfg := backendConfig{dsn: f.dsn, table: f.table, mode: f.mode, create: f.create, holds: f.holds, redis: f.redis}
	if f.releaseHold.set {
		switch {
		case d.releaseHold == 0:
			return nil, usageError{fmt.Errorf("--driver %s takes no --release-hold", f.driver)}
		case f.releaseHold.d < 0:
			return nil, usageError{fmt.Errorf("--release-hold %v: must not be negative (0 frees a released ID at once)", f.releaseHold.d)}
		}
		cfg.releaseHold = &f.releaseHold.d
	}
	be, err := d.open(ctx, cfg)
	if err != nil || !check {
		return be, err
	}
	cctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := be.check(cctx); err != nil {
		be.close()
		return nil, be.reword(err)
	}
	return be, nil
}

// reword returns err in the command line's terms (backend.explain).
func (be *backend) reword(err error) error {
	if err == nil || be.explain == nil {
		return err
	}
	return be.explain(err)
}

// list returns the machine IDs the coordinator holds now, ascending
// (driver.Lister; every driver's strategy implements it).
func (be *backend) list(ctx context.Context) ([]driver.Slot, error) {
	l, ok := be.strategy.(driver.Lister)
	if !ok {
		return nil, fmt.Errorf("the %s strategy cannot list its leases", be.strategy.Name())
	}
	slots, err := l.List(ctx)
	return slots, be.reword(err)
}

// defaultDuration is the lease duration a manager asks for on the
// driver's strategy when --duration is not given.
func (f *backendFlags) defaultDuration() time.Duration {
	if d := drivers[f.driver]; d != nil && d.leaseDuration > 0 {
		return d.leaseDuration
	}
	return driver.DefaultLeaseDuration
}

// pingTimeout bounds the connection check of ls, free and migrate.
const pingTimeout = 10 * time.Second

// fail reports err from a lease command: exit 2 for a usage error, else 1.
func fail(e *env, fs *flagSet, c *command, err error) int {
	var u usageError
	if errors.As(err, &u) {
		return fs.usageError(c, "%v", u.error)
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
			if d := drivers[bf.driver]; d != nil && d.noMigrate {
				errorf(e, "once "+c.name, "--driver %s needs no migration", bf.driver)
				return exitOK
			}
			ctx, cancel := signalContext()
			defer cancel()
			be, err := bf.open(ctx, true)
			if err != nil {
				return fail(e, fs, c, err)
			}
			defer be.close()
			if err := be.migrate(ctx); err != nil {
				return fail(e, fs, c, err)
			}
			return exitOK
		}
	},
}
