// Command scaleschema writes a large schema for the scale suite: an
// official schema plus extra definitions (see package scaletest).
//
//	go run ./internal/testsupport/scaletest/scaleschema -revision 2025-11-25 -defs 1000 -props 50 > big.json
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mcpgen/mcpgen/internal/testsupport/scaletest"
)

func main() {
	rev := flag.String("revision", "2025-11-25", "official revision to start from")
	defs := flag.Int("defs", 1000, "number of extra definitions")
	props := flag.Int("props", 50, "properties of each extra definition")
	flag.Parse()
	data, err := scaletest.Schema(*rev, *defs, *props)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaleschema:", err)
		os.Exit(1)
	}
	os.Stdout.Write(data)
}
