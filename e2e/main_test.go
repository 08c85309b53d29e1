// Package e2e runs the example programs as real subprocesses and checks the
// MCP cancellation rules on the bytes they exchange over stdio.
//
// TestMain builds examples/stdio-server and examples/stdio-client once (with
// -race when the tests run with -race, so a race inside a server process
// shows up as its exit status). The tests then talk to the server in two
// ways: as a raw peer that writes JSON-RPC lines to its stdin and reads every
// line of its stdout, and through the generated client API of each revision
// over a jsonrpc2.Conn. For the client-side rules the test binary itself runs
// as a scripted fake server (see fake_test.go).
//
// Nothing here sleeps to wait for something to happen: every wait is for a
// line from the subprocess (a response on stdout, a log record on stderr) or
// for a channel, with a generous bound that only guards against hangs.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"go.uber.org/goleak"
)

// Paths of the example binaries built by TestMain.
var serverBin, clientBin string

func TestMain(m *testing.M) {
	if os.Getenv(fakeServerEnv) != "" {
		os.Exit(fakeServer()) // this process is a fake server started by a test
	}
	dir, err := os.MkdirTemp("", "mcpgen-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	code := 1
	if err := build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building the examples:", err)
	} else {
		code = m.Run()
		if code == 0 {
			// No goroutine of the in-process clients may outlive its test.
			if err := goleak.Find(); err != nil {
				fmt.Fprintln(os.Stderr, "e2e: goleak:", err)
				code = 1
			}
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// build compiles both examples into dir.
func build(dir string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	args := []string{"build", "-o", dir + string(os.PathSeparator)}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args,
		"github.com/mcpgen/mcpgen/examples/stdio-server",
		"github.com/mcpgen/mcpgen/examples/stdio-client")
	cmd := exec.Command(goTool, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	serverBin = filepath.Join(dir, "stdio-server"+exe)
	clientBin = filepath.Join(dir, "stdio-client"+exe)
	return nil
}
