// Package nonce makes values that one process never produces twice: counter,
// sortable and encrypted nonces in 64, 96 and 128 bits, wire-compatible with
// the Elixir NoNoncense library (same bit layout, epoch, key derivation and
// ciphers).
//
//	f, err := nonce.New(nonce.Config{BaseKey: key}) // key: 32+ bytes, e.g. openssl rand -hex 32
//	m, err := lease.Start(ctx, strategy, lease.Options{Factories: ...}) // activates f with a machine ID
//	v, err := f.Counter64() // or Sortable64, Encrypted64, and the 96- and 128-bit kinds
//
// A factory generates nothing ([ErrDisabled]) until a lease manager (package
// lease) activates it with the machine ID it holds. A single process with
// no coordinator names its machine ID instead, and says so:
//
//	f, err := nonce.New(nonce.Config{BaseKey: key, Fixed: true}) // machine ID 0, at once
//
// Every process of one ID space needs its own machine ID (Config.MachineID
// with Fixed).
//
// Every value starts with a 42-bit timestamp (milliseconds since the factory
// epoch, by default 2025-01-01T00:00:00Z) and a 9-bit machine ID (0..511),
// followed by a counter: 13 bits in 64-bit values, 45 bits in 96-bit values,
// 13 zero bits and a 64-bit counter in 128-bit values. [Split64] takes a
// 64-bit value apart.
//
// Counter nonces are the fastest: one atomic add per call. Their timestamp is
// the high part of the counter; it lags real time while the factory is idle,
// which allows bursts far above the sustained rate of 8,192 values per
// millisecond, and it never passes real time: when it would, the call waits
// for the clock.
//
// Sortable nonces carry the exact creation millisecond and sort by time. The
// 64-bit kind is capped at 8,192 values per millisecond (a call spins and
// yields until the next millisecond when the cap is reached); the 96- and
// 128-bit kinds allow 4,194,304 per millisecond.
//
// Encrypted nonces are counter (or, with [Config.EncryptedBase], sortable)
// nonces passed through a block cipher whose block equals the nonce size, so
// they are unique and unpredictable. Keys are derived from a base key with
// PBKDF2-HMAC-SHA256 ([DeriveKey]) or given verbatim. 64- and 96-bit nonces
// use Blowfish (default), Speck or 3DES; 128-bit nonces use AES-256 (default)
// or Speck. With Blowfish or 3DES a 96-bit nonce is a 64-bit nonce,
// encrypted, followed by four zero bytes: the tail is predictable. Speck
// encrypts all 12 bytes and is the better 96-bit choice.
//
// A [Factory] is safe for concurrent use; generation is lock-free and does
// not allocate. A lease manager drives its lifecycle with
// [Factory.Activate], [Factory.Enable], [Factory.Extend] and
// [Factory.Disable]: a disabled factory, or one whose lease deadline has
// passed, returns [ErrDisabled] from every generator and never a value.
//
// Uniqueness holds when machine IDs are unique among the live factories of
// one ID space, one factory and one nonce kind serve an ID space, the wall
// clock moves forward between restarts of a machine ID, and the key and
// cipher of encrypted nonces never change.
package nonce
