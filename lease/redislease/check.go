package redislease

import (
	"context"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// probeField is the field the hash-mode check names in an HSETEX FXX that
// never writes (FXX on a missing field is a no-op). It is not part of the
// lease layout.
const probeField = "once.probe"

// Check verifies that the server supports the configured mode, that its
// eviction policy cannot reach lease data, and that the other mode's data
// does not exist under NAME. Configuration problems wrap
// [driver.ErrConfig]; an unreachable or busy server wraps [driver.ErrRetry].
// The first Acquire, Renew or Reclaim runs it when no Check has succeeded
// yet; call it yourself to fail fast at startup.
//
// Hash mode: HSETEX NAME FXX PX 1 FIELDS 1 once.probe "" must answer (it
// writes nothing). "unknown command" (Redis < 8.0, Valkey < 9.0) or a syntax
// error is ErrConfig, reported with the server's version from INFO server
// (Valkey's valkey_version, otherwise redis_version: Valkey also reports a
// redis_version of 7.2.4). WRONGTYPE (NAME is not a hash) is ErrConfig. Any
// key {NAME}:0 .. {NAME}:511 (key-mode data) is ErrConfig.
//
// Key mode: NAME must not be a hash (hash-mode data).
//
// Both modes: SCRIPT LOAD of the mode's scripts must succeed (scripting
// disabled or forbidden is ErrConfig), the eviction policy must be safe
// for the mode (see [Options.AcceptUnverifiedEviction] and the package
// documentation), and the master of NAME's slot must have no more
// connected replicas (INFO replication) than [Options.WaitReplicas]
// (see [Options.AcceptReplicaLoss]). The acquire scripts repeat the other-mode test
// atomically with every claim, and every Acquire, Renew and Reclaim reads
// the eviction policy again.
func (s *Strategy) Check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return s.errorf(driver.ErrRetry, "check: %w", context.Cause(ctx))
	}
	if err := s.loadScripts(ctx); err != nil {
		return err
	}
	var err error
	if s.opts.Mode == ModeHash {
		err = s.checkHash(ctx)
	} else {
		err = s.checkKey(ctx)
	}
	if err == nil {
		err = s.checkEviction(ctx, true)
	}
	if err == nil {
		err = s.checkReplicas(ctx)
	}
	if err == nil {
		s.checked.Store(true)
	}
	return err
}

func (s *Strategy) loadScripts(ctx context.Context) error {
	for _, sc := range modeScripts[s.opts.Mode] {
		if err := sc.Load(ctx, s.c).Err(); err != nil {
			if isConfigReply(err) {
				return s.errorf(driver.ErrConfig, "needs Lua scripting (EVALSHA, SCRIPT LOAD), server is %s: %w",
					s.serverVersion(ctx), err)
			}
			return s.classify(ctx, "check (SCRIPT LOAD)", err, false)
		}
	}
	return nil
}

func (s *Strategy) checkHash(ctx context.Context) error {
	err := s.c.Do(ctx, "HSETEX", s.opts.Name, "FXX", "PX", 1, "FIELDS", 1, probeField, "").Err()
	if err != nil {
		var re redis.Error
		switch {
		case !isConfigReply(err):
			return s.classify(ctx, "check (HSETEX)", err, false)
		case errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE"):
			return s.errorf(driver.ErrConfig, "key exists and is not a hash: %w", err)
		default:
			return s.errorf(driver.ErrConfig, "needs HSETEX with FNX/FXX/PX (Redis >= 8.0 or Valkey >= 9.0), "+
				"server is %s; use key mode: %w", s.serverVersion(ctx), err)
		}
	}
	n, err := s.c.Do(ctx, append([]any{"EXISTS"}, anys(s.idKeys)...)...).Int64()
	if err != nil {
		return s.classify(ctx, "check (EXISTS)", err, true)
	}
	if n > 0 {
		return s.otherModeError()
	}
	return nil
}

func (s *Strategy) checkKey(ctx context.Context) error {
	typ, err := s.c.Do(ctx, "TYPE", s.opts.Name).Text()
	if err != nil {
		return s.classify(ctx, "check (TYPE)", err, true)
	}
	if typ == "hash" {
		return s.otherModeError()
	}
	return nil
}

// otherModeError reports the other layout's data under NAME.
func (s *Strategy) otherModeError() error {
	if s.opts.Mode == ModeHash {
		return s.errorf(driver.ErrConfig, "refused: key-mode keys {NAME}:<id> exist; "+
			"two layouts on one NAME would hand out an ID twice")
	}
	return s.errorf(driver.ErrConfig, "refused: a hash-mode hash NAME exists; "+
		"two layouts on one NAME would hand out an ID twice")
}

// serverVersion describes the server from INFO server, best effort.
func (s *Strategy) serverVersion(ctx context.Context) string {
	info, err := s.c.Do(ctx, "INFO", "server").Text()
	if err != nil {
		return "of unknown version"
	}
	return parseVersion(info)
}

// parseVersion reads INFO server text. Valkey reports valkey_version (and a
// fixed redis_version of 7.2.4 for compatibility), so valkey_version wins.
func parseVersion(info string) string {
	var redisV, valkeyV string
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "valkey_version:"); ok {
			valkeyV = v
		} else if v, ok := strings.CutPrefix(line, "redis_version:"); ok {
			redisV = v
		}
	}
	switch {
	case plausible(valkeyV):
		return "Valkey " + valkeyV
	case plausible(redisV):
		return "Redis " + redisV
	}
	return "of unknown version"
}

// plausible reports whether a version read from the server is short and
// printable enough to put in a message.
func plausible(v string) bool { return v != "" && len(v) <= 20 && leasekit.Printable(v) }

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
