package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/redislease"
)

func init() {
	// go-redis logs connection failures on its own; the CLI reports them
	// once, in its own words.
	redis.SetLogger(silentRedis{})
	registerDriver(&leaseDriver{name: "redis", modes: []string{"hash", "key"}, noMigrate: true,
		releaseHold: redislease.DefaultReleaseHold,
		dsn:         "redis://[USER:PASS@]HOST:PORT/DB (also rediss://, unix://, or HOST:PORT)",
		open:        openRedis})
}

// silentRedis is a go-redis logger that drops everything.
type silentRedis struct{}

func (silentRedis) Printf(context.Context, string, ...any) {}

// redisFlags are lease hold's Redis flags.
type redisFlags struct {
	waitReplicas      int
	acceptReplicaLoss bool
	sharing           string // "", "by-name", "elixir" or "go-only"
}

// redisFlagNames are the flags only --driver redis takes.
var redisFlagNames = []string{"wait-replicas", "accept-replica-loss", "sharing"}

// sharings maps --sharing to redislease.Sharing.
var sharings = map[string]redislease.Sharing{
	"":        redislease.SharedByName,
	"by-name": redislease.SharedByName,
	"elixir":  redislease.SharedWithElixir,
	"go-only": redislease.GoOnly,
}

// addRedisFlags registers the Redis flags of lease hold.
func (f *backendFlags) addRedisFlags(fs *flagSet) {
	fs.IntVar(&f.redis.waitReplicas, "wait-replicas", 0, "Redis: count a claim or renewal only once `N` replicas of the master "+
		"acknowledged it (WAIT), so that a failover to one of them keeps the lease; set it to the number of replicas a failover "+
		"may promote. A master with more connected replicas than N is refused unless --accept-replica-loss")
	fs.BoolVar(&f.redis.acceptReplicaLoss, "accept-replica-loss", false, "Redis: run on a master with more replicas than "+
		"--wait-replicas (or whose replicas cannot be read), accepting that a failover to a replica that missed the latest claim "+
		"or renewal frees a machine ID still in use, and another process can take it")
	fs.StringVar(&f.redis.sharing, "sharing", "", "Redis: whether NAME is shared with the Elixir library, whose release deletes "+
		"a lease (`S`): by-name (the default: a hash named "+redislease.ElixirName+" is), elixir (hash mode only), go-only")
}

// check reports a bad Redis flag.
func (r redisFlags) check(mode string) error {
	s, ok := sharings[r.sharing]
	switch {
	case r.waitReplicas < 0:
		return fmt.Errorf("--wait-replicas %d: must not be negative", r.waitReplicas)
	case !ok:
		return fmt.Errorf("--sharing %s: want by-name, elixir or go-only", quoteValue(r.sharing))
	case s == redislease.SharedWithElixir && mode != "hash":
		return errors.New("--sharing elixir needs --mode hash: the Elixir library has no key mode")
	}
	return nil
}

// redisWords names the Redis options in the strategy's messages by the
// flags that set them.
var redisWords = strings.NewReplacer(
	"Options.WaitReplicas", "--wait-replicas",
	"Options.AcceptReplicaLoss", "--accept-replica-loss",
	"Options.Sharing", "--sharing",
	"Options.ReleaseHold", "--release-hold",
	"Options.Name", "--table",
)

// openRedis prepares a client of one Redis or Valkey server; its check
// verifies that the server supports the mode (and that the other mode's
// data is not under NAME), its eviction policy and, for hold, its
// replicas. ls and free hold no lease, so they run on a replicated master
// without the replica flags: a failover can lose what they did (a
// release) but make no two holders of one ID.
func openRedis(ctx context.Context, cfg backendConfig) (*backend, error) {
	mode, err := redislease.ParseMode(cfg.mode)
	if err != nil {
		return nil, usageError{err}
	}
	if err := cfg.redis.check(cfg.mode); err != nil {
		return nil, usageError{err}
	}
	var ro *redis.Options
	if strings.Contains(cfg.dsn, "://") {
		if ro, err = redis.ParseURL(cfg.dsn); err != nil {
			return nil, usageError{fmt.Errorf("--dsn: %v", err)}
		}
	} else {
		ro = &redis.Options{Addr: cfg.dsn}
	}
	ro.ContextTimeoutEnabled = true
	c := redis.NewClient(ro)
	s, err := redislease.New(c, redislease.Options{Mode: mode, Name: cfg.table, ReleaseHold: releaseHold(cfg),
		Sharing: sharings[cfg.redis.sharing], WaitReplicas: cfg.redis.waitReplicas,
		AcceptReplicaLoss: cfg.redis.acceptReplicaLoss || !cfg.holds})
	if err != nil {
		c.Close()
		return nil, usageError{fmt.Errorf("--table: %w", reworded{err, redisWords})}
	}
	return &backend{
		strategy: s,
		check:    s.Check,
		explain:  func(err error) error { return reworded{err, redisWords} },
		close:    c.Close,
	}, nil
}

// reworded is an error whose message names options by their flags; it
// still wraps the original (errors.Is).
type reworded struct {
	err   error
	words *strings.Replacer
}

func (r reworded) Error() string { return r.words.Replace(r.err.Error()) }
func (r reworded) Unwrap() error { return r.err }
