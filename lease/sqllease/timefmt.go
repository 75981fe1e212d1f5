package sqllease

import (
	"fmt"
	"strings"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// textLayout is how every dialect's query renders a timestamp to the
// strategy: UTC, microseconds, no zone (SQLite's trailing Z is trimmed).
// Reading time as text keeps the strategy independent of each driver's
// timestamp decoding (parseTime, loc=..., lib/pq vs pgx).
const textLayout = "2006-01-02T15:04:05.000000"

// maxDuration bounds the lease duration a caller may ask for.
const maxDuration = 10 * 366 * 24 * time.Hour

// parseTime parses a timestamp rendered by the queries as UTC.
func parseTime(what, s string) (time.Time, error) {
	t, err := time.ParseInLocation(textLayout, strings.TrimSuffix(s, "Z"), time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %s is not a UTC timestamp in the lease table's format (was the table written by another tool?): %w", what, leasekit.Quote(s), driver.ErrConfig)
	}
	return t, nil
}

// micros is d in whole microseconds, rounded up so that the granted TTL is
// never shorter than the one asked for.
func micros(d time.Duration) (int64, error) {
	if d <= 0 || d > maxDuration {
		return 0, fmt.Errorf("lease duration %v outside (0, %v]: %w", d, maxDuration, driver.ErrConfig)
	}
	return int64((d + time.Microsecond - 1) / time.Microsecond), nil
}

// sqliteExpiry splits a duration in microseconds into the two parameters of
// the SQLite expiry expression: a date modifier in whole milliseconds
// ("+28800.123 seconds", exact: SQLite's clock counts milliseconds) and the
// last three microsecond digits plus the zone ("456Z") appended to %f.
func sqliteExpiry(us int64) (modifier, suffix string) {
	ms := us / 1000
	return fmt.Sprintf("+%d.%03d seconds", ms/1000, ms%1000), fmt.Sprintf("%03dZ", us%1000)
}
