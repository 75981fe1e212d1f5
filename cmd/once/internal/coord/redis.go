package coord

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/cmd/once/internal/msg"
	"github.com/once-go/once/lease/redislease"
)

func init() {
	// go-redis logs connection failures on its own; the CLI reports them
	// once, in its own words.
	redis.SetLogger(silentRedis{})
	Register(&Driver{Name: "redis", Modes: []string{"hash", "key"}, NoMigrate: true,
		ReleaseHold: redislease.DefaultReleaseHold,
		DSN:         "redis://[USER:PASS@]HOST:PORT/DB (also rediss://, unix://, or HOST:PORT)",
		Open:        openRedis})
}

// silentRedis is a go-redis logger that drops everything.
type silentRedis struct{}

func (silentRedis) Printf(context.Context, string, ...any) {}

// RedisOptions are lease hold's Redis flags.
type RedisOptions struct {
	WaitReplicas      int
	AcceptReplicaLoss bool
	Sharing           string // "", "by-name", "elixir" or "go-only"
}

// RedisFlagNames are the flags only --driver redis takes.
var RedisFlagNames = []string{"wait-replicas", "accept-replica-loss", "sharing"}

// sharings maps --sharing to redislease.Sharing.
var sharings = map[string]redislease.Sharing{
	"":        redislease.SharedByName,
	"by-name": redislease.SharedByName,
	"elixir":  redislease.SharedWithElixir,
	"go-only": redislease.GoOnly,
}

// check reports a bad Redis flag.
func (r RedisOptions) check(mode string) error {
	s, ok := sharings[r.Sharing]
	switch {
	case r.WaitReplicas < 0:
		return fmt.Errorf("--wait-replicas %d: must not be negative", r.WaitReplicas)
	case !ok:
		return fmt.Errorf("--sharing %s: want by-name, elixir or go-only", msg.Quote(r.Sharing))
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
func openRedis(ctx context.Context, cfg Config) (*Backend, error) {
	mode, err := redislease.ParseMode(cfg.Mode)
	if err != nil {
		return nil, UsageError{Err: err}
	}
	if err := cfg.Redis.check(cfg.Mode); err != nil {
		return nil, UsageError{Err: err}
	}
	var ro *redis.Options
	if strings.Contains(cfg.DSN, "://") {
		if ro, err = redis.ParseURL(cfg.DSN); err != nil {
			return nil, UsageError{Err: fmt.Errorf("--dsn: %v", err)}
		}
	} else {
		ro = &redis.Options{Addr: cfg.DSN}
	}
	ro.ContextTimeoutEnabled = true
	c := redis.NewClient(ro)
	s, err := redislease.New(c, redislease.Options{Mode: mode, Name: cfg.Table, ReleaseHold: releaseHold(cfg),
		Sharing: sharings[cfg.Redis.Sharing], WaitReplicas: cfg.Redis.WaitReplicas,
		AcceptReplicaLoss: cfg.Redis.AcceptReplicaLoss || !cfg.Holds})
	if err != nil {
		c.Close()
		return nil, UsageError{Err: fmt.Errorf("--table: %w", reworded{err, redisWords})}
	}
	return &Backend{
		Strategy: s,
		Check:    s.Check,
		Explain:  func(err error) error { return reworded{err, redisWords} },
		Close:    c.Close,
	}, nil
}
