package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

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

// openRedis prepares a client of one Redis or Valkey server; its check
// verifies that the server supports the mode (and that the other mode's
// data is not under NAME).
func openRedis(ctx context.Context, cfg backendConfig) (*backend, error) {
	mode, err := redislease.ParseMode(cfg.mode)
	if err != nil {
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
	s, err := redislease.New(c, redislease.Options{Mode: mode, Name: cfg.table, ReleaseHold: releaseHold(cfg)})
	if err != nil {
		c.Close()
		return nil, usageError{fmt.Errorf("--table: %w", err)}
	}
	return &backend{
		strategy: s,
		check:    s.Check,
		list:     func(ctx context.Context) ([]leaseRow, error) { return redisRows(ctx, c, mode, s.Key()) },
		close:    c.Close,
	}, nil
}

// redisRows reads every machine ID's lease: its token and PTTL, with the
// server's TIME, in one round trip. Hash mode reads the fields "<id>" of the
// hash NAME (HMGET, HPTTL); key mode the keys {NAME}:<id> (MGET, PTTL).
func redisRows(ctx context.Context, c *redis.Client, mode redislease.Mode, name string) ([]leaseRow, error) {
	ids := make([]string, redislease.Capacity)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	var now *redis.TimeCmd
	var tokens *redis.SliceCmd
	var hpttl *redis.IntSliceCmd
	pttl := make([]*redis.Cmd, len(ids))
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		now = p.Time(ctx)
		if mode == redislease.ModeHash {
			tokens = p.HMGet(ctx, name, ids...)
			hpttl = p.HPTTL(ctx, name, ids...)
			return nil
		}
		keys := make([]string, len(ids))
		for i, id := range ids {
			keys[i] = "{" + name + "}:" + id
			pttl[i] = p.Do(ctx, "PTTL", keys[i])
		}
		tokens = p.MGet(ctx, keys...)
		return nil
	})
	if err != nil && err != redis.Nil {
		return nil, fmt.Errorf("reading the leases: %w", err)
	}
	t, err := now.Result()
	if err != nil {
		return nil, fmt.Errorf("reading the server time: %w", err)
	}
	vals := tokens.Val()
	ttls := make([]int64, len(ids))
	if hpttl != nil {
		copy(ttls, hpttl.Val())
	} else {
		for i, cmd := range pttl {
			ttls[i], _ = cmd.Int64()
		}
	}
	rows := make([]leaseRow, len(ids))
	for i := range rows {
		r := leaseRow{id: i}
		if i < len(vals) {
			if tok, ok := vals[i].(string); ok {
				r.token = []byte(tok)
				r.held = true
				if ms := ttls[i]; ms >= 0 { // -1: no TTL (never written so by the strategy)
					r.expiry = t.Add(time.Duration(ms) * time.Millisecond)
				}
			}
		}
		rows[i] = r
	}
	return rows, nil
}
