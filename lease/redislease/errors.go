package redislease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// pkg prefixes every error message.
const pkg = "redislease"

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

// errorf returns an error wrapping sentinel whose message names the mode
// and NAME: "redislease: <mode> on "<NAME>": <detail>: <sentinel>".
func (s *Strategy) errorf(sentinel error, format string, args ...any) error {
	return leasekit.Errorf(pkg, sentinel, "%s mode on %s: %w", s.opts.Mode, leasekit.Quote(s.opts.Name), fmt.Errorf(format, args...))
}

// classify wraps a client error for operation op. Everything is
// [driver.ErrRetry] (transport, timeouts, pool exhaustion, a closed client,
// context ends, and server replies such as LOADING, BUSY, READONLY,
// MASTERDOWN, CLUSTERDOWN, TRYAGAIN, OOM) except, when atStart is set
// (Check and Acquire: no lease held yet), configuration-class replies
// (unknown command, wrong arguments, WRONGTYPE, NOPERM), which are
// [driver.ErrConfig]. While a lease is held (Renew, Release) nothing is a
// configuration error: the outcome is unknown and the manager keeps trying
// until the lease's deadline.
//
// When ctx has ended, the error also wraps its cause (a command cut short
// by ctx's deadline reports an i/o timeout otherwise).
func (s *Strategy) classify(ctx context.Context, op string, err error, atStart bool) error {
	cause := context.Cause(ctx)
	if dl, ok := ctx.Deadline(); ok && cause == nil && !time.Now().Before(dl) {
		cause = context.DeadlineExceeded // the socket deadline fired a moment before ctx's timer
	}
	if cause != nil && !errors.Is(err, cause) {
		err = fmt.Errorf("%w (%w)", err, cause)
	}
	if atStart && isConfigReply(err) {
		return s.errorf(driver.ErrConfig, "%s: server refused the command: %w", op, err)
	}
	return s.errorf(driver.ErrRetry, "%s: %w", op, err)
}
