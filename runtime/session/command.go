package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// DefaultTerminateGrace is how long CommandTransport's Close waits for the
// server to exit after closing its stdin, and again after SIGTERM, when
// TerminateGrace is zero.
const DefaultTerminateGrace = 5 * time.Second

// CommandTransport is the client side of the MCP stdio transport to a server
// run as a subprocess (go-sdk has the same name): the server's stdin and
// stdout carry the messages. Pass it to Connect; closing the session closes
// it, which shuts the server down as basic/lifecycle.mdx describes for
// stdio.
type CommandTransport struct {
	// TerminateGrace bounds each step of Close: the wait for the server to
	// exit after its stdin is closed, then after SIGTERM, before SIGKILL.
	// Zero means DefaultTerminateGrace.
	TerminateGrace time.Duration

	cmd       *exec.Cmd
	t         *jsonrpc2.StdioTransport
	closeOnce sync.Once
	closeErr  error
}

// NewCommandTransport starts cmd and returns the transport over its stdin
// and stdout. cmd must not have Stdin or Stdout set; a nil cmd.Stderr is set
// to os.Stderr, so the server's log lines show (stderr is not an error
// channel in MCP).
func NewCommandTransport(cmd *exec.Cmd) (*CommandTransport, error) {
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("session: NewCommandTransport: cmd.Stdin and cmd.Stdout must be unset: they are the transport")
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("session: server command: %w", err)
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		toServer.Close()
		return nil, fmt.Errorf("session: server command: %w", err)
	}
	if err := cmd.Start(); err != nil {
		toServer.Close()
		fromServer.Close()
		return nil, fmt.Errorf("session: starting the server %q: %w", cmd.Path, err)
	}
	// Hiding Close on the server's stdout means closing the transport
	// closes only the server's stdin: the server sees EOF and exits, which
	// closes its stdout (and spares it a SIGPIPE for writing to a pipe we
	// closed). cmd.Wait closes our end afterwards.
	return &CommandTransport{cmd: cmd, t: jsonrpc2.NewStdioTransport(struct{ io.Reader }{fromServer}, toServer, jsonrpc2.StdioOptions{})}, nil
}

// Read returns the next message from the server's stdout.
func (c *CommandTransport) Read(ctx context.Context) ([]byte, error) { return c.t.Read(ctx) }

// Write writes one message to the server's stdin.
func (c *CommandTransport) Write(ctx context.Context, msg []byte) error { return c.t.Write(ctx, msg) }

// Close closes the server's stdin and waits for it to exit; after
// TerminateGrace it sends SIGTERM, and after TerminateGrace more, SIGKILL.
// It returns the server's exit error (nil for a clean exit). Later calls
// return the same.
func (c *CommandTransport) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.terminate() })
	return c.closeErr
}

func (c *CommandTransport) terminate() error {
	grace := c.TerminateGrace
	if grace <= 0 {
		grace = DefaultTerminateGrace
	}
	_ = c.t.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Kill} {
		select {
		case err := <-exited:
			return exitErr(err)
		case <-time.After(grace):
			_ = c.cmd.Process.Signal(sig)
		}
	}
	return exitErr(<-exited)
}

func exitErr(err error) error {
	if err != nil {
		return fmt.Errorf("session: server command: %w", err)
	}
	return nil
}

// Process returns the server's process (for its Pid).
func (c *CommandTransport) Process() *os.Process { return c.cmd.Process }
