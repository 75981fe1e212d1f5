package once_test

import (
	"errors"
	"fmt"

	"github.com/once-go/once/once"
)

// invoiceBinding is the binding of InvoiceID; an application usually binds
// once.DefaultBinding() instead.
var invoiceBinding once.Binding

type invoiceSpec struct{}

func (invoiceSpec) Options() once.Options {
	return once.Options{Prefix: "inv_", Mask: true, Generator: &invoiceBinding}
}

// InvoiceID is a masked ID type whose key is rotated.
type InvoiceID = once.Typed[invoiceSpec]

// A keyring of two generations: IDs are written with generation 2 ("inv2_")
// and read in both. The text would come from once.KeyringFromEnv or
// once.KeyringFromFile; the keys here are examples (use secrets of at least
// 32 random bytes).
func ExampleKeyring() {
	before, err := once.ParseKeyring("1 example-key-generation-1-32-bytes")
	if err != nil {
		panic(err)
	}
	invoiceBinding.SetKeyring(before)
	id := InvoiceID(once.FromUint64(255514662584827904))
	old := id.String()
	fmt.Println("before:", old)

	after, err := once.ParseKeyring(`
1 example-key-generation-1-32-bytes
2 example-key-generation-2-32-bytes current
`)
	if err != nil {
		panic(err)
	}
	invoiceBinding.SetKeyring(after)
	fmt.Println("after: ", id.String())

	back, g, err := once.ParseGeneration[InvoiceID](old)
	fmt.Println("old spelling:", back == id, "generation", g, err)

	_, err = once.ParseAs[InvoiceID]("inv3_" + old[len("inv_"):])
	fmt.Println(errors.Is(err, once.ErrUnknownGeneration), errors.Is(err, once.ErrInvalid))

	fmt.Println(after) // fingerprints, never keys
	// Output:
	// before: inv_aaRE_z-SL_w
	// after:  inv2_tT0-xoWCDUU
	// old spelling: true generation 1 <nil>
	// true true
	// 1 df9d2d8e
	// 2 4520b36c current
}
