//go:build race

package e2e

// raceEnabled makes TestMain build the example binaries with -race too, so a
// data race inside the server process fails its exit status (66).
const raceEnabled = true
