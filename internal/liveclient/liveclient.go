// Package liveclient connects to a running MCP server with the
// repository's own client (the generated mcp20260728.Connect, with every
// older revision as legacy, so either era) and reads what it declares:
// tools/list, prompts/list and resources/templates/list, every page. It is
// the network half of "mcpgen tools --from-server" and "--check-server";
// the snapshot it returns is what generator/tools reads.
//
// It is the one place where the command (cmd/mcpgen) reaches the runtime
// side: a client has to speak the protocol, and this repository's client
// is the one the generated callers will use. The price is that cmd/mcpgen
// is built with generated/mcp20260728, so a generator change that breaks
// those bindings must be fixed before mcpgen builds again (the drift test
// in generated/ keeps them equal to what the generator writes).
package liveclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
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

// Target says which server to connect to: a command run as a subprocess
// (stdio) or a Streamable HTTP endpoint.
type Target struct {
	// Command is the server's command line (stdio); empty for URL.
	Command []string
	// URL is the Streamable HTTP endpoint; empty for Command.
	URL string
	// Header is sent with every HTTP request (e.g. Authorization).
	Header http.Header
	// Stderr receives the subprocess's stderr (default: discarded).
	Stderr io.Writer
	// Client names this client in initialize (default mcpgen).
	Client session.Implementation
}

// Where names the server in messages: its URL or its command line.
func (t Target) Where() string {
	if t.URL != "" {
		return t.URL
	}
	return strings.Join(t.Command, " ")
}

// Snapshot is what a server declares, as mcpgen records it. Its JSON form
// (Marshal) is the snapshot file generator/tools reads.
type Snapshot struct {
	// Server is serverInfo as the server sent it.
	Server json.RawMessage
	// ProtocolVersion is the negotiated revision.
	ProtocolVersion string
	// Tools, Prompts and ResourceTemplates are the listed objects, each
	// exactly as the server sent it, in the server's order. A nil Prompts
	// (ResourceTemplates) means the server does not declare prompts
	// (resources).
	Tools, Prompts, ResourceTemplates []json.RawMessage
}

// maxPages bounds the pages read of one list: a server whose cursor never
// ends would otherwise be read forever.
const maxPages = 1000

// Fetch connects to t, negotiates, reads every page of the lists the server
// declares, and closes the connection.
func Fetch(ctx context.Context, t Target) (*Snapshot, error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	info := t.Client
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

// Marshal returns the snapshot file: an indented JSON object whose members
// are in a fixed order, each listed object indented as sent (its member
// order kept), ending in a newline; the same server gives the same bytes.
func (s *Snapshot) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n  \"mcpgenSnapshot\": 1,\n")
	server := s.Server
	if len(server) == 0 {
		server = json.RawMessage(`{}`)
	}
	fmt.Fprintf(&b, "  \"server\": %s,\n", indent(server, "  "))
	v, _ := json.Marshal(s.ProtocolVersion)
	fmt.Fprintf(&b, "  \"protocolVersion\": %s,\n", v)
	arrays := []struct {
		name  string
		items []json.RawMessage
	}{{"tools", s.Tools}, {"prompts", s.Prompts}, {"resourceTemplates", s.ResourceTemplates}}
	first := true
	for _, a := range arrays {
		if a.items == nil && a.name != "tools" {
			continue
		}
		if !first {
			b.WriteString(",\n")
		}
		first = false
		fmt.Fprintf(&b, "  %q: [", a.name)
		for i, it := range a.items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    ")
			b.Write(indent(it, "    "))
		}
		if len(a.items) > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString("]")
	}
	b.WriteString("\n}\n")
	if !json.Valid(b.Bytes()) {
		return nil, errors.New("liveclient: the server sent JSON that does not re-indent")
	}
	return b.Bytes(), nil
}

func indent(raw json.RawMessage, prefix string) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, prefix, "  "); err != nil {
		return raw
	}
	return b.Bytes()
}
