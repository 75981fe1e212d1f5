package main

import (
	"strings"
	"testing"

	"github.com/once-go/once/examples/internal/exampletest"
)

func TestExample(t *testing.T) {
	exampletest.Run(t, run, func(s string) bool {
		return strings.Count(s, " usr_") == 3
	})
}
