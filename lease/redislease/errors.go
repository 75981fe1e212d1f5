package redislease

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease"
)

// configPrefixes are server replies that retrying cannot fix: the command or
// its syntax is unsupported, the key has another type, ACLs forbid it.
var configPrefixes = []string{
	"ERR unknown command",
	"ERR unknown subcommand",
	"ERR wrong number of arguments",
	"ERR syntax error",
	"ERR numfields",
	"ERR invalid expire time",
	"ERR unsupported",
	"WRONGTYPE",
	"NOPERM",
	"NOSCRIPT", // only reaches us when EVAL itself is unavailable
}

// isConfigReply reports whether err is a server reply of the configuration
// class (see configPrefixes).
func isConfigReply(err error) bool {
	var re redis.Error
	if !errors.As(err, &re) || errors.Is(err, redis.Nil) {
		return false
	}
	msg := re.Error()
	for _, p := range configPrefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// classify wraps a client error for operation op. Everything is
// [lease.ErrRetry] (transport, timeouts, pool exhaustion, a closed client,
// context ends, and server replies such as LOADING, BUSY, READONLY,
// MASTERDOWN, CLUSTERDOWN, TRYAGAIN, OOM) except, when atStart is set
// (Check and Acquire: no lease held yet), configuration-class replies
// (unknown command, wrong arguments, WRONGTYPE, NOPERM), which are
// [lease.ErrConfig]. While a lease is held (Renew, Release) nothing is a
// configuration error: the outcome is unknown and the manager keeps trying
// until the lease's deadline.
func (s *Strategy) classify(op string, err error, atStart bool) error {
	if atStart && isConfigReply(err) {
		return fmt.Errorf("redislease: %s %s on %q: server refused the command: %w: %w",
			s.opts.Mode, op, clip(s.opts.Name), lease.ErrConfig, err)
	}
	return fmt.Errorf("redislease: %s %s on %q: %w: %w", s.opts.Mode, op, clip(s.opts.Name), lease.ErrRetry, err)
}
