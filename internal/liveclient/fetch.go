//go:build !mcpgen_bootstrap

package liveclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// maxPages bounds the pages read of one list: a server whose cursor never
// ends would otherwise be read forever.
const maxPages = 1000

// Fetch connects to t, negotiates, reads every page of the lists the server
// declares, and closes the connection.
func Fetch(ctx context.Context, t Target) (*Snapshot, error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	info := session.Implementation{Name: t.ClientName, Version: t.ClientVersion}
	if info.Name == "" {
		info = session.Implementation{Name: "mcpgen", Version: "snapshot"}
	}
	opts := []session.ClientOption{
		session.WithClientLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()),
		session.WithClientLogger(quiet),
	}
	var (
		tr      jsonrpc2.Transport
		cleanup = func() {}
		where   string
	)
	switch {
	case len(t.Command) > 0 && t.URL != "":
		return nil, errors.New("liveclient: both a command and a URL")
	case len(t.Command) > 0:
		where = strings.Join(t.Command, " ")
		cmd := exec.Command(t.Command[0], t.Command[1:]...)
		cmd.Stderr = t.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		tr = jsonrpc2.NewStdioTransport(stdout, stdin, jsonrpc2.StdioOptions{})
		cleanup = func() {
			stdin.Close() // the stdio page: close stdin, then wait, then signal
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				cmd.Process.Signal(os.Interrupt)
				select {
				case <-done:
				case <-time.After(2 * time.Second):
					cmd.Process.Kill()
					<-done
				}
			}
		}
	case t.URL != "":
		where = t.URL
		revisions := []session.Revision{mcp.Revision(), mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()}
		ct, err := streamhttp.Dial(ctx, t.URL, streamhttp.ClientOptions{Header: t.Header, Revisions: revisions, ClientInfo: info, Logger: quiet})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		tr = ct
	default:
		return nil, errors.New("liveclient: no command and no URL")
	}
	defer cleanup()
	sess, err := mcp.Connect(ctx, tr, info, nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: connecting: %w", where, err)
	}
	defer sess.Close(context.WithoutCancel(ctx))
	snap := &Snapshot{Server: sess.ServerInfoJSON(), ProtocolVersion: sess.ProtocolVersion()}
	var caps map[string]json.RawMessage
	json.Unmarshal(sess.ClientSession.ServerCapabilities(), &caps)
	conn := sess.RuntimeConn()
	if _, ok := caps["tools"]; ok {
		if snap.Tools, err = list(ctx, conn, "tools/list", "tools"); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	} else {
		snap.Tools = []json.RawMessage{}
	}
	if _, ok := caps["prompts"]; ok {
		if snap.Prompts, err = list(ctx, conn, "prompts/list", "prompts"); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	if _, ok := caps["resources"]; ok {
		if snap.ResourceTemplates, err = list(ctx, conn, "resources/templates/list", "resourceTemplates"); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	return snap, nil
}

// list reads every page of a paginated list method and returns the members
// of the named array, each as sent.
func list(ctx context.Context, conn *jsonrpc2.Conn, method, member string) ([]json.RawMessage, error) {
	out := []json.RawMessage{}
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("%s: more than %d pages", method, maxPages)
		}
		params := json.RawMessage(`{}`)
		if cursor != "" {
			b, _ := json.Marshal(map[string]string{"cursor": cursor})
			params = b
		}
		var raw json.RawMessage
		if err := conn.Call(ctx, method, params, &raw); err != nil {
			return nil, fmt.Errorf("%s (page %d): %w", method, page+1, err)
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("%s (page %d): result is not an object: %v", method, page+1, err)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(res[member], &items); err != nil {
			return nil, fmt.Errorf("%s (page %d): /%s: want an array: %v", method, page+1, member, err)
		}
		out = append(out, items...)
		var next string
		if c, ok := res["nextCursor"]; ok && string(c) != "null" {
			if err := json.Unmarshal(c, &next); err != nil {
				return nil, fmt.Errorf("%s (page %d): /nextCursor: want a string", method, page+1)
			}
		}
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("%s (page %d): nextCursor %q was already returned (the list would never end)", method, page+1, next)
		}
		seen[next] = true
		cursor = next
	}
}
