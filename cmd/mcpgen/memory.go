package main

import (
	"os"
	"runtime/debug"
)

// budgetMemory, when set, is told the size of the schema about to be
// built. main sets it to setMemoryLimit; tests, which run the CLI inside
// the test process, leave it nil.
var budgetMemory func(schemaBytes int)

// Memory budget: the peak of a run is transient data (the syntax tree of
// types.go while it is gofmt'd), about 35 times the schema's size for a
// large schema. Left alone, the collector lets the heap grow to twice the
// live data before collecting, and further when the machine is busy, so
// the official 2025-11-25 schema plus 1,000 extra definitions of 50
// properties (6 MB) peaked at 450-560 MB of RSS. A soft limit of 48 times
// the schema, and at least minMemoryLimit, keeps that case under 400 MB
// for a few percent more CPU, and is far above the live data of any
// schema, so the collector never has to run flat out.
const (
	minMemoryLimit        = 384 << 20
	memoryPerByteOfSchema = 48
)

// setMemoryLimit sets the process's soft memory limit for a schema of
// schemaBytes, unless the user set one with GOMEMLIMIT.
func setMemoryLimit(schemaBytes int) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(max(minMemoryLimit, memoryPerByteOfSchema*int64(schemaBytes)))
}
