package once_test

import (
	"encoding/json"
	"fmt"

	"github.com/once-go/once/once"
)

// The JSON Schema of a masked typed ID, for an API document.
func ExampleSchemaOf() {
	s, err := once.SchemaOf(CustomerID{})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Pattern)
	doc, _ := json.MarshalIndent(s, "", "  ")
	fmt.Println(string(doc))
	// Output:
	// ^cus_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$
	// {
	//   "type": "string",
	//   "format": "once-id",
	//   "description": "ID: \"cus_\" then 11 base64url characters, the last one of AEIMQUYcgkosw048 (masked)",
	//   "pattern": "^cus_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$",
	//   "minLength": 15,
	//   "maxLength": 15,
	//   "examples": [
	//     "cus_zAjhfZyAAAE"
	//   ],
	//   "x-once-id": {
	//     "prefix": "cus_",
	//     "format": "url64",
	//     "mask": true
	//   }
	// }
}

// An unsigned decimal ID: the pattern spells out the range up to 2^64-1.
func ExampleOptions_Schema() {
	s, err := once.Options{Prefix: "n", Format: once.Unsigned}.Schema()
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Pattern)
	fmt.Println(s.MinLength, s.MaxLength, s.Example)
	// Output:
	// ^n(?:[1-9][0-9]{0,18}|1(?:[0-7][0-9]{18}|8(?:[0-3][0-9]{17}|4(?:[0-3][0-9]{16}|4(?:[0-5][0-9]{15}|6(?:[0-6][0-9]{14}|7(?:[0-3][0-9]{13}|4(?:[0-3][0-9]{12}|40(?:[0-6][0-9]{10}|7(?:[0-2][0-9]{9}|3(?:[0-6][0-9]{8}|70(?:[0-8][0-9]{6}|9(?:[0-4][0-9]{5}|5(?:[0-4][0-9]{4}|5(?:0[0-9]{3}|1(?:[0-5][0-9]{2}|6(?:0[0-9]|1[0-5])))))))))))))))))$
	// 2 21 n14702248913163780097
}
