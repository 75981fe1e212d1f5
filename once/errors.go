package once

import (
	"errors"
	"strconv"
)

// Sentinel errors. Every error the package returns matches one of them with
// [errors.Is] (errors from a nonce factory are wrapped and still match the
// nonce package's sentinels); the message says what was wrong.
var (
	// ErrInvalid: text, JSON or a database value is not a valid ID for the
	// type (wrong prefix, length, character, range, non-zero spare bits,
	// NULL, unsupported type).
	ErrInvalid = errors.New("once: invalid ID")
	// ErrConfig: the options of an ID type are invalid. The message names
	// the option.
	ErrConfig = errors.New("once: invalid options")
	// ErrNoGenerator: masking or generating needs a nonce factory and none
	// is bound (see [DefaultBinding] and [Options.Generator]), or the bound
	// factory has no key material for masking (the error then also matches
	// nonce.ErrNoKey).
	ErrNoGenerator = errors.New("once: no generator")
	// ErrUnknownGeneration: text spells a masked ID of a key generation
	// that the bound [Keyring] does not hold (or no keyring is bound). It is
	// an invalid ID too: such errors also match [ErrInvalid].
	ErrUnknownGeneration = errors.New("once: unknown key generation")
)

// idError carries the detail of an error and the sentinel it belongs to.
type idError struct {
	kind  error  // one of the sentinels
	msg   string // full message, "once: ..."
	cause error  // optional wrapped error
}

func (e *idError) Error() string { return e.msg }
func (e *idError) Is(target error) bool {
	return target == e.kind || e.kind == ErrUnknownGeneration && target == ErrInvalid
}
func (e *idError) Unwrap() error { return e.cause }

// maxQuote is how many bytes of bad input a message quotes.
const maxQuote = 40

// quote renders untrusted input for an error message, at most maxQuote bytes.
func quote(s string) string {
	if len(s) > maxQuote {
		return strconv.Quote(s[:maxQuote]) + "..."
	}
	return strconv.Quote(s)
}

// invalid returns an ErrInvalid error: `once: invalid <what> "<in>": <msg>`.
func invalid(what, in, msg string) error {
	return &idError{kind: ErrInvalid, msg: "once: invalid " + what + " " + quote(in) + ": " + msg}
}

// configError returns an ErrConfig error naming the option.
func configError(msg string) error {
	return &idError{kind: ErrConfig, msg: "once: invalid options: " + msg}
}

// inType adds the type whose options are invalid to a configuration error.
func inType(err error, typ string) error {
	var e *idError
	if typ == "" || !errors.As(err, &e) || e.kind != ErrConfig {
		return err
	}
	return &idError{kind: ErrConfig, msg: "once: invalid options of " + typ + e.msg[len("once: invalid options"):], cause: e.cause}
}

// errNoGenerator is returned when no factory is bound.
var errNoGenerator = &idError{kind: ErrNoGenerator,
	msg: "once: no generator: bind a nonce factory with once.DefaultBinding().Set or Options.Generator"}

// noKeyError is returned when masking and the bound factory has no key.
func noKeyError(cause error) error {
	return &idError{kind: ErrNoGenerator, cause: cause,
		msg: "once: masked ID needs a generator with key material: " + cause.Error()}
}

// generateError wraps an error of the nonce factory (e.g. nonce.ErrDisabled
// while no lease is held); errors.Is sees through it.
func generateError(cause error) error {
	return &idError{cause: cause, msg: "once: generating an ID: " + cause.Error()}
}

// unknownGeneration is the error for the spelling in of a key generation
// g that the keyring does not hold.
func unknownGeneration(in string, g int, r *Keyring) error {
	msg := "no keyring is bound (only generation 1, the plain prefix, is known)"
	if r != nil {
		msg = "the keyring holds generations 1 to " + strconv.Itoa(len(r.keys))
	}
	return &idError{kind: ErrUnknownGeneration,
		msg: "once: invalid ID " + quote(in) + ": key generation " + strconv.Itoa(g) + " is unknown: " + msg}
}
