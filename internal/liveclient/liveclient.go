// Package liveclient connects to a running MCP server with the
// repository's own client (the generated mcp20260728.Connect, with every
// older revision as legacy, so either era) and reads what it declares:
// tools/list, prompts/list and resources/templates/list, every page. It is
// the network half of "mcpgen tools --from-server" and "--check-server";
// the snapshot it returns is what generator/tools reads.
//
// It is the one place where the command (cmd/mcpgen) reaches the runtime
// side (its row in ARCHITECTURE.md has the role bridge, which only a
// command may import): a client has to speak the protocol, and this
// repository's client is the one the generated callers will use. So that
// the bindings can always be regenerated, even when the committed ones do
// not compile, the build tag mcpgen_bootstrap (which go:generate in
// generated/ sets) leaves the connecting half (fetch.go) out: Fetch then
// returns ErrBootstrap, and mcpgen builds from the toolchain alone.
package liveclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
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
	// ClientName and ClientVersion name this client in initialize
	// (default mcpgen, snapshot).
	ClientName, ClientVersion string
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

// ErrBootstrap is Fetch's error in an mcpgen built with -tags
// mcpgen_bootstrap, which leaves the client out (see the package comment).
var ErrBootstrap = errors.New("this mcpgen was built with -tags mcpgen_bootstrap, without its MCP client: build it without the tag to reach a server")
