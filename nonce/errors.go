package nonce

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the package returns matches exactly one of
// them with [errors.Is]; the message carries the detail.
var (
	// ErrDisabled: the factory has no machine ID yet (no lease manager
	// activated it and it is not Fixed), was disabled, or its lease
	// deadline has passed. No value was produced.
	ErrDisabled = errors.New("nonce: factory disabled")
	// ErrNoKey: an encrypted nonce or an Encrypt/Decrypt call needs key
	// material the factory was not given.
	ErrNoKey = errors.New("nonce: no key material")
	// ErrConfig: the configuration or an argument is invalid (machine ID
	// out of range, short or public base key, wrong key length, unknown
	// cipher, clock outside the epoch's 42-bit range).
	ErrConfig = errors.New("nonce: invalid configuration")
)

// nonceError carries a detailed message and the sentinel it belongs to.
type nonceError struct {
	kind error
	msg  string
}

func (e *nonceError) Error() string { return e.msg }
func (e *nonceError) Unwrap() error { return e.kind }

// Prebuilt errors of the generation path: returning them never allocates.
var (
	errDisabled = &nonceError{ErrDisabled, "nonce: factory disabled"}
	errAwaiting = &nonceError{ErrDisabled, "nonce: factory disabled: no machine ID yet (a lease manager, lease.Start, activates it; " +
		"for a single process set Config.Fixed, with Config.MachineID)"}
	errExpired  = &nonceError{ErrDisabled, "nonce: factory disabled: lease expired"}
	errOverflow = &nonceError{ErrConfig, "nonce: clock is 2^42 ms or more past the epoch: timestamp field overflows"}
	errNoKey64  = &nonceError{ErrNoKey, "nonce: no key for 64-bit encryption (set BaseKey or Key64)"}
	errNoKey96  = &nonceError{ErrNoKey, "nonce: no key for 96-bit encryption (set BaseKey or Key96)"}
	errNoKey128 = &nonceError{ErrNoKey, "nonce: no key for 128-bit encryption (set BaseKey or Key128)"}
)

func configErr(format string, args ...any) error {
	return &nonceError{ErrConfig, "nonce: " + fmt.Sprintf(format, args...)}
}

// quote renders untrusted text for an error message, at most 40 bytes of it.
func quote(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%q...", s[:40])
	}
	return fmt.Sprintf("%q", s)
}
