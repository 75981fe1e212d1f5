package nonce

import (
	"sync"
	"sync/atomic"
	"time"
)

// DefaultEpochUnixMilli is the default epoch, 2025-01-01T00:00:00Z, in Unix
// milliseconds (the Elixir library's default).
const DefaultEpochUnixMilli = 1735689600000

// MaxMachineID is the largest machine ID (9 bits).
const MaxMachineID = 511

// DefaultEpoch returns the default epoch, 2025-01-01T00:00:00Z.
func DefaultEpoch() time.Time { return time.UnixMilli(DefaultEpochUnixMilli).UTC() }

// Config configures a [Factory]. The zero value is valid: a factory without
// key material that generates nothing until a lease manager gives it a
// machine ID (see Fixed for single-process use).
type Config struct {
	// Fixed makes the factory generate at once, on MachineID, without a
	// lease manager: for a single process, or for tests. The application
	// then guarantees that no other live factory of the ID space has the
	// same machine ID: every process of one ID space needs its own.
	// Single-process use is one line:
	//
	//	f, err := nonce.New(nonce.Config{BaseKey: key, Fixed: true}) // machine ID 0, at once
	//
	// Without Fixed the factory returns [ErrDisabled] from every generator
	// until a lease manager (package lease) activates it with the machine
	// ID it holds.
	Fixed bool
	// MachineID is the machine ID of a Fixed factory, 0..MaxMachineID.
	// Without Fixed it must be 0: the lease manager sets the machine ID.
	MachineID int
	// Epoch is time zero of the timestamp field; zero means the default.
	// The clock must be within 2^42 ms (about 139 years) after it.
	Epoch time.Time
	// BaseKey is the key material of encrypted nonces and of masking, at
	// least 32 bytes, used verbatim; the key of each size is derived from it
	// (DeriveKey). Generate one with openssl rand -hex 32 (its 64
	// characters are the key). The demo keys of once's examples and the
	// placeholders of its manifests and docs are public and refused
	// ([ErrConfig]) unless AllowDemoKey is set. Nil: no encryption unless a
	// per-size key is given.
	BaseKey []byte
	// AllowDemoKey accepts a BaseKey that once publishes (the demo key of an
	// example): for demos only, whose masked IDs hide nothing.
	AllowDemoKey bool
	// Fingerprint is the key fingerprint the factory reports
	// ([Factory.Fingerprint]), which lease holders record so that
	// instances with different keys show: 8 lowercase hex digits. Default:
	// the fingerprint of BaseKey. An application whose IDs are masked with
	// a key ring of several generations (once.Keyring) gives the current
	// generation's, so that a fleet in the middle of a rotation shows.
	Fingerprint string
	// Cipher64, Cipher96 and Cipher128 choose the cipher of each size.
	Cipher64, Cipher96, Cipher128 Cipher
	// Key64, Key96 and Key128 override the derived key of one size; each
	// must have the exact key length of its cipher.
	Key64, Key96, Key128 []byte
	// EncryptedBase is the kind encrypted nonces are made from: Counter
	// (the default, also for zero) or Sortable.
	EncryptedBase Kind
	// Now replaces time.Now (tests inject a clock). Time is measured from
	// the difference of two readings, so a clock with monotonic readings
	// stays monotonic.
	Now func() time.Time
}

// Factory makes nonces. It is safe for concurrent use; generators are
// lock-free and do not allocate. Create one with [New].
type Factory struct {
	state  atomic.Pointer[state] // nil: disabled
	reason atomic.Int32          // why state is nil, for the error message

	now     func() time.Time
	epoch   time.Time
	epochNs int64
	base    Kind

	b64      Block64  // nil without key material
	narrow96 Block64  // Blowfish/3DES for 96 bits: the 64-bit base is encrypted
	b96      block96  // nil without key material
	b128     block128 // nil without key material

	fingerprint string // of the base key; "" without one

	machineID atomic.Int32

	mu       sync.Mutex // serialises lifecycle calls and the deadline timer
	cur      *state     // the current lease's state, enabled or not
	next     uint64     // lowest timestamp a new lease may start at
	timer    *time.Timer
	timerSeq uint64
}

// Reasons for a disabled factory.
const (
	reasonDisabled int32 = iota
	reasonAwaiting
	reasonExpired
)

func (f *Factory) disabledErr() error {
	switch f.reason.Load() {
	case reasonAwaiting:
		return errAwaiting
	case reasonExpired:
		return errExpired
	}
	return errDisabled
}

// New validates cfg and returns a factory. Unless cfg.Fixed is set, the
// factory generates nothing ([ErrDisabled]) until a lease manager activates
// it with a machine ID; with Fixed it is enabled at once on cfg.MachineID,
// without deadline, and its counters start at the current millisecond.
// Errors match [ErrConfig].
func New(cfg Config) (*Factory, error) {
	if err := checkMachineID(cfg.MachineID); err != nil {
		return nil, err
	}
	if cfg.MachineID != 0 && !cfg.Fixed {
		return nil, configErr("MachineID %d without Fixed: a lease manager sets the machine ID of a factory; set Fixed to generate on machine ID %d without one", cfg.MachineID, cfg.MachineID)
	}
	f := &Factory{now: cfg.Now, epoch: cfg.Epoch, base: cfg.EncryptedBase}
	if f.epoch.IsZero() {
		f.epoch = DefaultEpoch()
	}
	f.epochNs = f.epoch.UnixNano()
	switch cfg.EncryptedBase {
	case 0:
		f.base = Counter
	case Counter, Sortable:
	default:
		return nil, configErr("EncryptedBase %s: want counter (the default) or sortable", cfg.EncryptedBase)
	}
	if len(cfg.BaseKey) > 0 && len(cfg.BaseKey) < minBaseKeyLen {
		return nil, configErr("BaseKey must be at least %d bytes, got %d (make one with openssl rand -hex 32)", minBaseKeyLen, len(cfg.BaseKey))
	}
	if !cfg.AllowDemoKey && isPublicKey(cfg.BaseKey) {
		return nil, errPublicKey
	}
	if err := f.setupCiphers(cfg); err != nil {
		return nil, err
	}
	switch {
	case cfg.Fingerprint != "":
		if !isFingerprint(cfg.Fingerprint) {
			return nil, configErr("Fingerprint %.20q: want 8 lowercase hex digits, as Fingerprint returns", cfg.Fingerprint)
		}
		f.fingerprint = cfg.Fingerprint
	case len(cfg.BaseKey) > 0:
		fp, err := Fingerprint(cfg.BaseKey)
		if err != nil {
			return nil, err
		}
		f.fingerprint = fp
	}
	f.machineID.Store(int32(cfg.MachineID))
	now := f.wall()
	nowMs, err := f.clockMs(now)
	if err != nil {
		return nil, err
	}
	if !cfg.Fixed {
		f.reason.Store(reasonAwaiting)
		return f, nil
	}
	f.cur = f.newState(cfg.MachineID, nowMs, now)
	f.state.Store(f.cur)
	return f, nil
}

func checkMachineID(id int) error {
	if id < 0 || id > MaxMachineID {
		return configErr("machine ID %d out of range 0..%d", id, MaxMachineID)
	}
	return nil
}

// clockMs converts a clock reading to ms since the epoch and refuses
// readings outside the 42-bit timestamp range.
func (f *Factory) clockMs(t time.Time) (uint64, error) {
	ns := t.UnixNano() - f.epochNs
	if ns < 0 {
		return 0, configErr("clock %s is before the epoch %s", t.UTC().Format(time.RFC3339), f.epoch.UTC().Format(time.RFC3339))
	}
	if ms := uint64(ns / msPerNs); ms < maxTS {
		return ms, nil
	}
	return 0, errOverflow
}

// setupCiphers builds the ciphers of every size that has key material.
func (f *Factory) setupCiphers(cfg Config) error {
	key := func(size int, c Cipher, override []byte) (cipherSpec, []byte, error) {
		sp, err := specFor(size, c)
		if err != nil {
			return sp, nil, err
		}
		switch {
		case len(override) > 0:
			if len(override) != sp.keyLen {
				return sp, nil, configErr("Key%d for %s must be %d bytes, got %d", size, sp.cipher, sp.keyLen, len(override))
			}
			return sp, override, nil
		case len(cfg.BaseKey) > 0:
			k, err := DeriveKey(cfg.BaseKey, sp.label, sp.keyLen)
			return sp, k, err
		}
		return sp, nil, nil
	}

	sp, k, err := key(64, cfg.Cipher64, cfg.Key64)
	if err != nil {
		return err
	}
	if k != nil {
		if f.b64, err = newBlock64(sp.cipher, k); err != nil {
			return err
		}
	}
	if sp, k, err = key(96, cfg.Cipher96, cfg.Key96); err != nil {
		return err
	}
	if k != nil {
		if f.b96, err = newBlock96(sp.cipher, k); err != nil {
			return err
		}
		if t, ok := f.b96.(tail96); ok {
			f.narrow96 = t.b
		}
	}
	if sp, k, err = key(128, cfg.Cipher128, cfg.Key128); err != nil {
		return err
	}
	if k != nil {
		if f.b128, err = newBlock128(sp.cipher, k); err != nil {
			return err
		}
	}
	return nil
}

// MachineID returns the machine ID of the current (or last) lease, else
// Config.MachineID.
func (f *Factory) MachineID() int { return int(f.machineID.Load()) }

// Epoch returns the factory's epoch.
func (f *Factory) Epoch() time.Time { return f.epoch }

// Enabled reports whether generators currently produce values: the factory
// is enabled and its deadline, if any, has not passed.
func (f *Factory) Enabled() bool {
	st := f.state.Load()
	return st != nil && f.elapsed(st) < st.deadline.Load()
}

// Cipher64 returns the factory's 64-bit cipher (what Encrypt64 uses), or nil
// without 64-bit key material.
func (f *Factory) Cipher64() Block64 { return f.b64 }
