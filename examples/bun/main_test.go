package main

import (
	"strings"
	"testing"

	"github.com/once-go/once/examples/internal/exampletest"
)

func TestExample(t *testing.T) {
	exampletest.Run(t, run, func(s string) bool {
		return strings.Contains(s, `"id": "usr_`) && strings.Count(s, `"id": "pst_`) == 2
	})
}
