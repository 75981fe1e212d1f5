// Package coord opens the lease coordinators of the lease commands: each
// driver (postgres, mysql, sqlite, redis; etcd and kubernetes in builds
// with the tags of the same names) registers itself from init with
// [Register], so adding one is one new file. Its errors name the command
// line's flags (--dsn, --table), not the strategies' Go options.
package coord

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/once-go/once/lease/driver"
)

// A Driver opens a lease coordinator for the lease commands.
type Driver struct {
	Name  string   // the --driver value
	DSN   string   // what --dsn looks like, for the help
	Modes []string // the accepted --mode values; nil: --mode is not accepted
	// NoMigrate: the coordinator needs no migration (lease migrate says so).
	NoMigrate bool
	// DSNOptional: an empty --dsn means the driver's default place.
	DSNOptional bool
	// ReleaseHold is the default of --release-hold (lease hold); 0: the
	// driver takes no --release-hold.
	ReleaseHold time.Duration
	// LeaseDuration is the lease its strategy asks for by default
	// (driver.DurationDefaulter); 0: the manager's default.
	LeaseDuration time.Duration
	// AcquireTimeout is the default of --acquire-timeout (lease hold);
	// 0: the manager's default.
	AcquireTimeout time.Duration
	// Open prepares a client of the coordinator named by cfg. It makes no
	// request (Backend.Check does) and creates nothing (that is migrate).
	Open func(ctx context.Context, cfg Config) (*Backend, error)
}

// Config is what the common lease flags say.
type Config struct {
	DSN   string
	Table string // "" = the driver's default
	Mode  string // "" unless the driver has modes
	// Create: the command creates what is missing (migrate); the others
	// create nothing, not even an SQLite file.
	Create bool
	// ReleaseHold is --release-hold when given, else nil (the driver's
	// default).
	ReleaseHold *time.Duration
	// Holds: the command holds leases (hold); the others only read them
	// or release one (ls, free, migrate).
	Holds bool
	// Redis holds the Redis flags of lease hold.
	Redis RedisOptions
}

// Backend is an opened coordinator.
type Backend struct {
	Strategy driver.Strategy
	// Check makes one request: it tells a coordinator that cannot be
	// reached, or cannot serve leases, from one that can.
	Check func(ctx context.Context) error
	// Explain, if set, rewords an error of the strategy in terms of the
	// command line (its Go option names as the flags that set them).
	Explain func(error) error
	// Released, if set, reports a listed ID that was released and stays
	// taken for the strategy's release hold (etcd lists it so).
	Released func(driver.Slot) bool
	// Migrate creates what the coordinator needs (nil if NoMigrate).
	Migrate func(ctx context.Context) error
	Close   func() error
}

// UsageError is an error of the command line (exit status 2), not of the
// coordinator.
type UsageError struct{ Err error }

func (u UsageError) Error() string { return u.Err.Error() }
func (u UsageError) Unwrap() error { return u.Err }

var drivers = map[string]*Driver{}

// Register adds d; called from init.
func Register(d *Driver) { drivers[d.Name] = d }

// Lookup returns the driver named name, nil if there is none.
func Lookup(name string) *Driver { return drivers[name] }

// Names lists the registered drivers, sorted.
func Names() []string {
	names := make([]string, 0, len(drivers))
	for n := range drivers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Help documents --driver, --mode and --dsn for each driver.
func Help() string {
	var b strings.Builder
	b.WriteString("Drivers (--driver) and their --dsn:\n")
	for _, n := range Names() {
		d := drivers[n]
		mode := ""
		if d.Modes != nil {
			mode = " --mode " + strings.Join(d.Modes, "|")
		}
		fmt.Fprintf(&b, "  %-11s%s --dsn %s\n", n, mode, d.DSN)
	}
	if missing := missingDrivers(); missing != "" {
		fmt.Fprintf(&b, "  (%s)\n", missing)
	}
	b.WriteString(`--table names the lease table (SQL), NAME (Redis: the hash, or the hash
tag of the keys {NAME}:ID; default once_leases for both), the key prefix
(etcd) or the Lease name prefix (kubernetes).
`)
	return b.String()
}

// optional are the drivers a build has only with the build tag of the
// same name: they need client libraries that most uses of the command do
// without.
var optional = []string{"etcd", "kubernetes"}

// missingDrivers says which optional drivers this build lacks and how to
// get them, "" when it has them all.
func missingDrivers() string {
	var missing []string
	for _, n := range optional {
		if drivers[n] == nil {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return strings.Join(missing, " and ") + ": not in this build; install with -tags " + strings.Join(optional, ",")
}

// Unknown is the message for a --driver value that names no driver of
// this build.
func Unknown(name string) string {
	msg := "unknown driver (want " + strings.Join(Names(), ", ") + ")"
	if slices.Contains(optional, name) {
		msg = "not in this build (go install -tags " + strings.Join(optional, ",") + " github.com/once-go/once/cmd/once@VERSION has it)"
	}
	return msg
}

// DefaultDuration is the lease duration a manager asks for on the
// driver's strategy when --duration is not given.
func (d *Driver) DefaultDuration() time.Duration {
	if d != nil && d.LeaseDuration > 0 {
		return d.LeaseDuration
	}
	return driver.DefaultLeaseDuration
}

// PingTimeout bounds the connection check of Connect.
const PingTimeout = 10 * time.Second

// Connect opens the backend and checks the connection, for up to
// PingTimeout: the commands that run once (ls, free, migrate) fail fast
// on an unreachable coordinator.
func (d *Driver) Connect(ctx context.Context, cfg Config) (*Backend, error) {
	be, err := d.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, PingTimeout)
	defer cancel()
	if err := be.Check(cctx); err != nil {
		be.Close()
		return nil, be.Reword(err)
	}
	return be, nil
}

// Reword returns err in the command line's terms (Backend.Explain).
func (be *Backend) Reword(err error) error {
	if err == nil || be.Explain == nil {
		return err
	}
	return be.Explain(err)
}

// List returns the machine IDs the coordinator holds now, ascending
// (driver.Lister; every driver's strategy implements it).
func (be *Backend) List(ctx context.Context) ([]driver.Slot, error) {
	l, ok := be.Strategy.(driver.Lister)
	if !ok {
		return nil, fmt.Errorf("the %s strategy cannot list its leases", be.Strategy.Name())
	}
	slots, err := l.List(ctx)
	return slots, be.Reword(err)
}

// Find lists the backend's leases and returns machine ID id's.
func (be *Backend) Find(ctx context.Context, id int) (driver.Slot, bool, error) {
	slots, err := be.List(ctx)
	if err != nil {
		return driver.Slot{}, false, err
	}
	i := slices.IndexFunc(slots, func(s driver.Slot) bool { return s.MachineID == id })
	if i < 0 {
		return driver.Slot{}, false, nil
	}
	return slots[i], true, nil
}

// releaseHold is the ReleaseHold option of the Redis and etcd strategies
// for --release-hold: 0 (their default) when it is not given, negative
// (delete on release) for --release-hold 0.
func releaseHold(cfg Config) time.Duration {
	switch {
	case cfg.ReleaseHold == nil:
		return 0
	case *cfg.ReleaseHold == 0:
		return -1
	}
	return *cfg.ReleaseHold
}

// reworded is an error whose message names options by their flags; it
// still wraps the original (errors.Is).
type reworded struct {
	err   error
	words *strings.Replacer
}

func (r reworded) Error() string { return r.words.Replace(r.err.Error()) }
func (r reworded) Unwrap() error { return r.err }
