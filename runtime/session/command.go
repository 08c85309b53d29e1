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
// run as a subprocess, like go-sdk's type of the same name: the server's
// stdin and stdout carry the messages. Pass it to Connect, which starts
// Command with its first read or write:
//
//	sess, err := mcp.Connect(ctx, &session.CommandTransport{Command: exec.Command("my-server")}, info, nil)
//
// Closing the session closes the transport, which shuts the server down as
// basic/lifecycle.mdx describes for stdio: its stdin is closed, then, if it
// has not exited within TerminateGrace, it gets SIGTERM, and after as long
// again SIGKILL. So Close is bounded by twice TerminateGrace.
type CommandTransport struct {
	// Command is the server to run. Its Stdin and Stdout must be unset
	// (they are the transport); a nil Stderr is set to os.Stderr, so the
	// server's log lines show (stderr is not an error channel in MCP).
	Command *exec.Cmd
	// TerminateGrace bounds each step of Close (default
	// DefaultTerminateGrace).
	TerminateGrace time.Duration

	startOnce sync.Once
	startErr  error
	t         *jsonrpc2.StdioTransport
	closeOnce sync.Once
	closeErr  error
}

// start runs Command, once.
func (c *CommandTransport) start() error {
	c.startOnce.Do(func() { c.startErr = c.run() })
	return c.startErr
}

func (c *CommandTransport) run() error {
	cmd := c.Command
	if cmd == nil {
		return errors.New("session: CommandTransport has no Command")
	}
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return fmt.Errorf("session: server command %q: Stdin and Stdout must be unset: they are the transport", cmd.Path)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("session: server command %q: %w", cmd.Path, err)
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		toServer.Close()
		return fmt.Errorf("session: server command %q: %w", cmd.Path, err)
	}
	if err := cmd.Start(); err != nil {
		toServer.Close()
		fromServer.Close()
		return fmt.Errorf("session: starting the server: %w", err)
	}
	// Hiding Close on the server's stdout means closing the transport
	// closes only the server's stdin: the server sees EOF and exits, which
	// closes its stdout (and spares it a SIGPIPE for writing to a pipe we
	// closed). cmd.Wait closes our end afterwards.
	c.t = jsonrpc2.NewStdioTransport(struct{ io.Reader }{fromServer}, toServer, jsonrpc2.StdioOptions{})
	return nil
}

// Read returns the next message from the server's stdout, starting the
// server first if need be.
func (c *CommandTransport) Read(ctx context.Context) ([]byte, error) {
	if err := c.start(); err != nil {
		return nil, err
	}
	return c.t.Read(ctx)
}

// Write writes one message to the server's stdin, starting the server
// first if need be.
func (c *CommandTransport) Write(ctx context.Context, msg []byte) error {
	if err := c.start(); err != nil {
		return err
	}
	return c.t.Write(ctx, msg)
}

// Close closes the server's stdin and waits for it to exit; after
// TerminateGrace it sends SIGTERM, and after TerminateGrace more, SIGKILL.
// It returns the server's exit error (nil for a clean exit, or if the
// server never started). Later calls return the same.
func (c *CommandTransport) Close() error {
	c.startOnce.Do(func() { c.startErr = jsonrpc2.ErrTransportClosed }) // never start after Close
	c.closeOnce.Do(func() {
		if c.t != nil {
			c.closeErr = c.terminate()
		}
	})
	return c.closeErr
}

func (c *CommandTransport) terminate() error {
	grace := c.TerminateGrace
	if grace <= 0 {
		grace = DefaultTerminateGrace
	}
	_ = c.t.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.Command.Wait() }()
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Kill} {
		timer := time.NewTimer(grace)
		select {
		case err := <-exited:
			timer.Stop()
			return exitErr(err)
		case <-timer.C:
			_ = c.Command.Process.Signal(sig)
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
