package once_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// accountSpec declares the options of AccountID: prefixed url64 text, a
// bigint in the database.
type accountSpec struct{}

func (accountSpec) Options() once.Options { return once.Options{Prefix: "acct_"} }

// AccountID is the ID type of accounts.
type AccountID = once.Typed[accountSpec]

// customerSpec declares CustomerID: prefixed and masked with the cipher of
// the default generator.
type customerSpec struct{}

func (customerSpec) Options() once.Options { return once.Options{Prefix: "cus_", Mask: true} }

// CustomerID is the ID type of customers.
type CustomerID = once.Typed[customerSpec]

// exampleKey is a fixed base key for the examples (use a secret of at least
// 32 random bytes).
var exampleKey = []byte("example base key, 32 bytes long!")

func Example() {
	id, err := once.Parse("zAjhfZyAAAE")
	if err != nil {
		panic(err)
	}
	fmt.Println(id, id.Uint64(), id.Int64())

	// One ID, one spelling: other formats, upper case and non-zero spare
	// bits are errors.
	for _, s := range []string{"cc08e17d9c800001", "zAjhfZyAAAF"} {
		_, err = once.Parse(s)
		fmt.Println(errors.Is(err, once.ErrInvalid), err)
	}
	// Output:
	// zAjhfZyAAAE 14702248913163780097 -3744495160545771519
	// true once: invalid ID "cc08e17d9c800001": length 16, want 11 (url64)
	// true once: invalid ID "zAjhfZyAAAF": non-zero spare bits in the last character (not the canonical url64 spelling)
}

func Example_zero() {
	// The zero ID means "no ID": "" in text and JSON (as net/netip spells
	// its zero value), never a real-looking spelling, and no database value.
	type Account struct {
		ID AccountID `json:"id"`
	}
	data, _ := json.Marshal(Account{})
	fmt.Println(string(data))

	var a Account
	fmt.Println(json.Unmarshal(data, &a), a.ID.IsZero())

	_, err := once.ParseAs[AccountID]("acct_AAAAAAAAAAA") // the url64 spelling of 0
	fmt.Println(err)
	_, err = a.ID.Value() // an insert with an unfilled ID fails
	fmt.Println(errors.Is(err, once.ErrInvalid))
	// Output:
	// {"id":""}
	// <nil> true
	// once: invalid ID "acct_AAAAAAAAAAA": spells 0, the zero ID ("no ID"), whose only spelling is ""
	// true
}

func Example_typed() {
	acct, err := once.ParseAs[AccountID]("acct_M48oJk4HnzE")
	if err != nil {
		panic(err)
	}
	fmt.Println(acct, acct.Int64())

	// Conversions to and from plain IDs are explicit.
	plain := once.ID(acct)
	fmt.Println(plain, AccountID(plain) == acct)

	_, err = once.ParseAs[AccountID]("M48oJk4HnzE")
	fmt.Println(err)
	// Output:
	// acct_M48oJk4HnzE 3715232362586939185
	// M48oJk4HnzE true
	// once: invalid ID "M48oJk4HnzE": missing prefix "acct_"
}

func Example_masked() {
	// Masking needs the key, not a machine ID: the factory need not hold
	// a lease.
	f, err := nonce.New(nonce.Config{BaseKey: exampleKey}) // Blowfish by default
	if err != nil {
		panic(err)
	}
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)

	c := CustomerID(once.FromUint64(1))
	dbValue, _ := c.Value()
	fmt.Println(c, dbValue) // the API shows E(1); the database holds 1

	back, err := once.ParseAs[CustomerID](c.String())
	fmt.Println(back.Uint64(), err)
	// Output:
	// cus_aIJpgKKFaoU 1
	// 1 <nil>
}

func Example_json() {
	type Account struct {
		ID    AccountID `json:"id"`
		Owner once.ID   `json:"owner"`
	}
	a := Account{ID: AccountID(once.FromUint64(3715232362586939185)), Owner: once.FromUint64(42)}
	data, _ := json.Marshal(a)
	fmt.Println(string(data))

	var back Account
	err := json.Unmarshal(data, &back)
	fmt.Println(back == a, err)

	// IDs are JSON strings; numbers and null are rejected.
	fmt.Println(json.Unmarshal([]byte(`{"id":12}`), &back))
	// Output:
	// {"id":"acct_M48oJk4HnzE","owner":"AAAAAAAAACo"}
	// true <nil>
	// once: invalid JSON value "12": a JSON number; this ID type is spelled as a JSON string (numbers only for unprefixed signed/unsigned types)
}

func Example_nullable() {
	type Account struct {
		ID       AccountID           `json:"id"`
		ParentID *AccountID          `json:"parent_id"` // nullable: JSON null, SQL NULL
		OwnerID  sql.Null[AccountID] `json:"-"`         // nullable in SQL (no JSON methods)
	}
	var a Account
	_ = a.ID.Scan(int64(7))
	_ = a.OwnerID.Scan(nil) // NULL
	data, _ := json.Marshal(a)
	fmt.Println(string(data), a.OwnerID.Valid)

	_ = a.OwnerID.Scan(int64(8))
	fmt.Println(a.OwnerID.V, a.OwnerID.Valid)

	// NULL into a non-nullable ID is an error, not a silent zero.
	fmt.Println(a.ID.Scan(nil))
	// Output:
	// {"id":"acct_AAAAAAAAAAc","parent_id":null} false
	// acct_AAAAAAAAAAg true
	// once: invalid database value NULL: use sql.Null[T] or *T for nullable columns
}

func ExampleNewAs() {
	// A factory with an injected clock (tests); in production the lease
	// manager activates a factory with a leased machine ID.
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 7, Now: func() time.Time { return at }})
	if err != nil {
		panic(err)
	}
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)

	id, err := once.NewAs[AccountID]()
	if err != nil {
		panic(err)
	}
	p := nonce.Split64(id.Uint64(), time.Time{})
	fmt.Println(id, p.Time.Format(time.RFC3339), p.MachineID, p.Counter)
	// Output:
	// acct_AddgBCIA4AA 2026-01-02T03:04:05Z 7 0
}

func ExampleOptions_NewFunc() {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 7, Now: func() time.Time { return at }})
	if err != nil {
		panic(err)
	}
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)

	// Options checked once; each call draws like Options.New.
	newID, err := AccountID{}.Options().NewFunc()
	if err != nil {
		panic(err)
	}
	for range 2 {
		id, err := newID()
		if err != nil {
			panic(err)
		}
		fmt.Println(nonce.Split64(id.Uint64(), time.Time{}).Counter)
	}
	// Output:
	// 0
	// 1
}

type badSpec struct{}

func (badSpec) Options() once.Options { return once.Options{Prefix: "acct", PersistPrefix: true} }

func ExampleCheck() {
	// At startup: report invalid options before the first request.
	err := once.Check(AccountID{}, CustomerID{}, badSpec{})
	fmt.Println(errors.Is(err, once.ErrConfig), err)
	// Output:
	// true once: invalid options of once_test.badSpec: PersistPrefix needs a text or raw DBFormat, not signed
}

func ExampleOptions_ParseAny() {
	// Tools and data migrations read every spelling the Elixir library's
	// cast accepts: here upper-case hex, and url64 told apart by length.
	opts := once.Options{Prefix: "usr_", Format: once.Hex}
	for _, s := range []string{"usr_338F28264E079F31", "usr_M48oJk4HnzE"} {
		id, err := opts.ParseAny(s)
		text, _ := opts.AppendText(nil, id) // the canonical spelling
		fmt.Println(id.Uint64(), string(text), err)
	}
	// The ID types accept only the canonical spelling.
	_, err := once.ParseAs[AccountID]("acct_338f28264e079f31")
	fmt.Println(err)
	// Output:
	// 3715232362586939185 usr_338f28264e079f31 <nil>
	// 3715232362586939185 usr_338f28264e079f31 <nil>
	// once: invalid ID "acct_338f28264e079f31": length 16, want 11 (url64)
}
