// Command once is a tool for people operating systems that use once IDs and
// machine-ID leases: it converts, masks, unmasks, inspects and generates IDs,
// and migrates, holds, lists and frees machine-ID leases.
//
// Run "once --help" for the commands and "once COMMAND --help" for each one.
// The etcd and kubernetes lease drivers are in builds with the tags of the
// same names:
//
//	go install -tags etcd,kubernetes github.com/once-go/once/cmd/once@VERSION
package main

import (
	"os"

	"github.com/once-go/once/cmd/once/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
