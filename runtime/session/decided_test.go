package session_test

import (
	"context"
	"strings"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// finalWriter keeps the final message a delivered request gets.
type finalWriter chan string

func (w finalWriter) WriteMessage(_ context.Context, m *jsonrpc2.OutMessage) error {
	if m.Kind == jsonrpc2.KindResponse || m.Kind == jsonrpc2.KindErrorResponse {
		w <- string(m.Data)
	}
	return nil
}

// TestTransportDecidesVersion: the session serves a request at the
// version its transport decided (jsonrpc2.Message.Version, which a
// Streamable HTTP server sets once the header and _meta agree) without
// reading params._meta's again: here _meta names a version this server
// does not speak, which only a request without a decision is refused for.
func TestTransportDecidesVersion(t *testing.T) {
	srv := mcp.NewServer(session.Implementation{Name: "s", Version: "1"}, versionTool{})
	conn, err := srv.Dispatcher(jsonrpc2.NoTransport())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	meta := func(v string) string {
		return `{"io.modelcontextprotocol/protocolVersion":"` + v + `","io.modelcontextprotocol/clientCapabilities":{}}`
	}
	for _, c := range []struct {
		version, meta, want string
	}{
		{"2026-07-28", meta("2099-01-01"), `"text":"2026-07-28"`},
		{"", meta("2026-07-28"), `"text":"2026-07-28"`},
		{"", meta("2099-01-01"), `Unsupported protocol version`},
	} {
		w := make(finalWriter, 1)
		m := &jsonrpc2.Message{Kind: jsonrpc2.KindRequest, ID: jsonrpc2.Int64ID(1), Method: "tools/call",
			Params: []byte(`{"name":"v","_meta":` + c.meta + `}`), Version: c.version}
		if conn.Deliver(context.Background(), m, w) == nil {
			t.Fatal("refused")
		}
		if got := <-w; !strings.Contains(got, c.want) {
			t.Errorf("decided %q, _meta %s: got %s, want %s", c.version, c.meta, got, c.want)
		}
	}
}
