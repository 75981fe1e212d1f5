// Package leasekit holds the small helpers every lease strategy needs, so
// that they agree: the machine-ID range and its canonical decimal spelling,
// random tokens, the order in which free IDs are tried, quoting untrusted
// input in messages, and the shape of error messages.
package leasekit

import (
	crand "crypto/rand"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// IDs is the number of machine IDs: 0..nonce.MaxMachineID.
const IDs = nonce.MaxMachineID + 1

// ValidID reports whether id is a machine ID (0..511).
func ValidID(id int) bool { return id >= 0 && id <= nonce.MaxMachineID }

// ParseID parses a machine ID written the one canonical way: decimal
// digits, no sign, no leading zero ("7", not "07" or "+7"), 0..511.
func ParseID(s string) (int, bool) {
	if s == "" || len(s) > 3 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, ValidID(n)
}

// TokenBytes is the size of a random token.
const TokenBytes = 16

// NewToken returns 16 random bytes.
func NewToken() [TokenBytes]byte {
	var b [TokenBytes]byte
	crand.Read(b[:]) // never fails (crypto/rand panics on a broken source)
	return b
}

// NewTokenString returns 16 random bytes as base64url without padding
// (22 characters): printable, safe in keys, logs and state files.
func NewTokenString() string {
	b := NewToken()
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Candidates picks up to k of the free IDs (ascending) to try: the lowest
// ones with lowestFirst, otherwise distinct ones drawn at random (a partial
// Fisher-Yates shuffle of free, which it reorders). Contenders that start
// together then rarely race for the same ID.
func Candidates(free []int, k int, lowestFirst bool) []int {
	k = min(len(free), max(k, 0))
	if lowestFirst {
		return free[:k]
	}
	for i := range k {
		j := i + rand.IntN(len(free)-i)
		free[i], free[j] = free[j], free[i]
	}
	return free[:k]
}

// Printable reports whether s holds only printable ASCII other than space
// (what a key name or prefix may contain).
func Printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// maxQuoted is how many bytes of untrusted input a message quotes.
const maxQuoted = 40

// Quote quotes at most 40 bytes of untrusted input for a message.
func Quote(s string) string {
	if len(s) > maxQuoted {
		return strconv.Quote(s[:maxQuoted]) + "..."
	}
	return strconv.Quote(s)
}

// Errorf returns the error every strategy returns: "pkg: detail: " then
// the sentinel's message, matching sentinel with errors.Is. format may use
// %w for a cause, which errors.Is and errors.As then also reach.
func Errorf(pkg string, sentinel error, format string, args ...any) error {
	return fmt.Errorf(pkg+": "+format+": %w", append(args, sentinel)...)
}

// maxHolder bounds a recorded holder's length.
const maxHolder = 200

// Holder returns who this process is, for a strategy to record beside its
// lease: the host name (a pod's name on Kubernetes) and the process ID, as
// "host/pid". Strategies take an Options.Holder that overrides it.
func Holder() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return CleanHolder(host + "/" + strconv.Itoa(os.Getpid()))
}

// CleanHolder makes s fit to record and print: printable ASCII (space
// allowed, other bytes replaced by '?'), at most 200 bytes.
func CleanHolder(s string) string {
	b := []byte(s)
	if len(b) > maxHolder {
		b = b[:maxHolder]
	}
	for i, c := range b {
		if c < ' ' || c >= 0x7f {
			b[i] = '?'
		}
	}
	return string(b)
}

// MachineIDs validates a strategy's Options.MachineIDs: nil is every ID
// (0..511); otherwise the range must lie within 0..511 and hold at least
// one ID. The error wraps driver.ErrConfig and names the option and the fix.
func MachineIDs(pkg string, r *driver.IDRange) (driver.IDRange, error) {
	if r == nil {
		return driver.AllIDs(), nil
	}
	if r.Min > r.Max {
		return *r, Errorf(pkg, driver.ErrConfig, "Options.MachineIDs %d..%d is empty (Min > Max): set Min <= Max within 0..%d, or leave MachineIDs nil for all IDs", r.Min, r.Max, IDs-1)
	}
	if !r.Valid() {
		return *r, Errorf(pkg, driver.ErrConfig, "Options.MachineIDs %d..%d is outside 0..%d: set Min and Max within 0..%d, or leave MachineIDs nil for all IDs", r.Min, r.Max, IDs-1, IDs-1)
	}
	return *r, nil
}
