package redislease

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease"
)

// probeField is the field the hash-mode check names in an HSETEX FXX that
// never writes (FXX on a missing field is a no-op). It is not part of the
// lease layout.
const probeField = "once.probe"

// Check verifies that the server supports the configured mode and that the
// other mode's data does not exist under NAME. Configuration problems wrap
// [lease.ErrConfig]; an unreachable or busy server wraps [lease.ErrRetry].
// The first Acquire or Renew runs it when no Check has succeeded yet; call it
// yourself to fail fast at startup.
//
// Hash mode: HSETEX NAME FXX PX 1 FIELDS 1 once.probe "" must answer (it
// writes nothing). "unknown command" (Redis < 8.0, Valkey < 9.0) or a syntax
// error is ErrConfig, reported with the server's version from INFO server
// (Valkey's valkey_version, otherwise redis_version: Valkey also reports a
// redis_version of 7.2.4). WRONGTYPE (NAME is not a hash) is ErrConfig. Any
// key {NAME}:0 .. {NAME}:511 (key-mode data) is ErrConfig.
//
// Key mode: SCRIPT LOAD of the three scripts must succeed (scripting
// disabled or forbidden is ErrConfig), and NAME must not be a hash
// (hash-mode data). The acquire script repeats that test atomically.
func (s *Strategy) Check(ctx context.Context) error {
	_, err := bounded(ctx, func() (struct{}, error) {
		if s.opts.Mode == ModeHash {
			return struct{}{}, s.checkHash(ctx)
		}
		return struct{}{}, s.checkKey(ctx)
	}, nil)
	if err == nil {
		s.checked.Store(true)
	}
	return err
}

func (s *Strategy) ensureChecked(ctx context.Context) error {
	if s.checked.Load() {
		return nil
	}
	return s.Check(ctx)
}

func (s *Strategy) checkHash(ctx context.Context) error {
	err := s.c.Do(ctx, "HSETEX", s.opts.Name, "FXX", "PX", 1, "FIELDS", 1, probeField, "").Err()
	if err != nil {
		var re redis.Error
		switch {
		case !isConfigReply(err):
			return s.classify("check (HSETEX)", err, false)
		case errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE"):
			return fmt.Errorf("redislease: hash mode: key %q exists and is not a hash: %w: %w",
				clip(s.opts.Name), lease.ErrConfig, err)
		default:
			return fmt.Errorf("redislease: hash mode needs HSETEX with FNX/FXX/PX (Redis >= 8.0 or Valkey >= 9.0), "+
				"server is %s; use key mode: %w: %w", s.serverVersion(ctx), lease.ErrConfig, err)
		}
	}
	n, err := s.c.Do(ctx, append([]any{"EXISTS"}, anys(s.idKeys)...)...).Int64()
	if err != nil {
		return s.classify("check (EXISTS)", err, true)
	}
	if n > 0 {
		return s.otherModeError()
	}
	return nil
}

func (s *Strategy) checkKey(ctx context.Context) error {
	for _, sc := range []*redis.Script{acquireScript, renewScript, releaseScript} {
		if err := sc.Load(ctx, s.c).Err(); err != nil {
			if isConfigReply(err) {
				return fmt.Errorf("redislease: key mode needs Lua scripting (EVALSHA, SCRIPT LOAD), server is %s: %w: %w",
					s.serverVersion(ctx), lease.ErrConfig, err)
			}
			return s.classify("check (SCRIPT LOAD)", err, false)
		}
	}
	typ, err := s.c.Do(ctx, "TYPE", s.opts.Name).Text()
	if err != nil {
		return s.classify("check (TYPE)", err, true)
	}
	if typ == "hash" {
		return s.otherModeError()
	}
	return nil
}

// otherModeError reports the other layout's data under NAME.
func (s *Strategy) otherModeError() error {
	if s.opts.Mode == ModeHash {
		return fmt.Errorf("redislease: hash mode refused: key-mode keys {%s}:<id> exist; "+
			"two layouts on one NAME would hand out an ID twice: %w", clip(s.opts.Name), lease.ErrConfig)
	}
	return fmt.Errorf("redislease: key mode refused: hash-mode hash %q exists; "+
		"two layouts on one NAME would hand out an ID twice: %w", clip(s.opts.Name), lease.ErrConfig)
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
	case valkeyV != "":
		return "Valkey " + clip(valkeyV)
	case redisV != "":
		return "Redis " + clip(redisV)
	}
	return "of unknown version"
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
