package nonce_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/once-go/once/nonce"
)

func ExampleSplit64() {
	p := nonce.Split64(0x0383286c6f400001, time.Time{}) // zero: default epoch
	fmt.Println(p.Time.Format(time.RFC3339Nano), p.MachineID, p.Counter)
	// Output: 2026-11-30T09:31:05.533Z 0 1
}

func ExampleNew() {
	// A factory generates nothing until a lease manager (package lease)
	// activates it with the machine ID it holds.
	f, err := nonce.New(nonce.Config{})
	if err != nil {
		panic(err)
	}
	_, err = f.Counter64()
	fmt.Println(errors.Is(err, nonce.ErrDisabled))

	// A single process with no coordinator names its machine ID instead.
	g, err := nonce.New(nonce.Config{Fixed: true, MachineID: 3})
	if err != nil {
		panic(err)
	}
	v, _ := g.Counter64()
	fmt.Println(nonce.Split64(v, g.Epoch()).MachineID)
	// Output:
	// true
	// 3
}

func ExampleFactory_Counter64() {
	// A fixed clock makes the output reproducible; production code leaves
	// Now nil.
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 7, Now: func() time.Time { return now }})
	if err != nil {
		panic(err)
	}
	for range 3 {
		v, _ := f.Counter64()
		p := nonce.Split64(v, f.Epoch())
		fmt.Printf("%#016x %s machine=%d counter=%d\n", v, p.Time.Format(time.RFC3339), p.MachineID, p.Counter)
	}
	// Output:
	// 0x01d760042200e000 2026-01-02T03:04:05Z machine=7 counter=0
	// 0x01d760042200e001 2026-01-02T03:04:05Z machine=7 counter=1
	// 0x01d760042200e002 2026-01-02T03:04:05Z machine=7 counter=2
}

func ExampleFactory_Encrypt64() {
	// Encryption needs the key, not a machine ID: no lease is needed.
	f, err := nonce.New(nonce.Config{
		Fixed:   true,
		BaseKey: []byte("an example key of at least 32 bytes"),
		// Cipher64 zero: Blowfish, key derived with the label "blowfish_64".
	})
	if err != nil {
		panic(err)
	}
	masked, _ := f.Encrypt64(12345)
	plain, _ := f.Decrypt64(masked)
	fmt.Printf("%#016x %d\n", masked, plain)
	// Output: 0xca0b70af184d9538 12345
}

func ExampleNewBlock64() {
	key := []byte("sixteen byte key")
	b, err := nonce.NewBlock64(nonce.Blowfish, key)
	if err != nil {
		panic(err)
	}
	c := b.Encrypt(1)
	fmt.Printf("%#016x %d\n", c, b.Decrypt(c))
	// Output: 0xacb506897af9bbdf 1
}

func ExampleFactory_Activate() {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f, _ := nonce.New(nonce.Config{Now: func() time.Time { return now }})
	_, err := f.Sortable64()
	fmt.Println(err)

	// The lease manager activates the factory with the leased machine ID.
	if err := f.Activate(300, time.Time{}, now.Add(time.Hour)); err != nil {
		panic(err)
	}
	v, _ := f.Sortable64()
	fmt.Println(nonce.Split64(v, time.Time{}).MachineID)

	f.Disable()
	_, err = f.Counter64()
	fmt.Println(err)
	// Output:
	// nonce: factory disabled: no machine ID yet (a lease manager, lease.Start, activates it; for a single process set Config.Fixed, with Config.MachineID)
	// 300
	// nonce: factory disabled
}
