package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// TestHTTPServerAuth runs examples/http-server --auth as a process, with
// an RFC 7662 introspection endpoint standing in for the authorization
// server: 401 with the metadata URL, the metadata at both well-known URIs,
// a token for another resource refused, a per-tool scope refused with 403,
// the identity reaching the tool (its log record), a session bound to its
// creator. (The full OAuth flow against a real authorization server is
// issue 23's client part.)
func TestHTTPServerAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	const resource = "http://mcp.test/mcp"
	intro := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "rs" || p != "s3cret" {
			http.Error(w, "bad client", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		aud := resource
		var sub, scope string
		switch r.PostFormValue("token") {
		case "alice":
			sub, scope = "alice", "mcp mcp:sleep"
		case "bob":
			sub, scope = "bob", "mcp"
		case "elsewhere":
			sub, scope, aud = "alice", "mcp mcp:sleep", "http://other.test/mcp"
		default:
			w.Write([]byte(`{"active":false}`))
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"active": true, "sub": sub, "scope": scope, "aud": aud, "iss": "http://as.test"})
	}))
	defer intro.Close()
	t.Setenv("MCP_AUTH_CLIENT_SECRET", "s3cret")
	dir := buildHTTPExamples(t, "http-server")
	url, records := startHTTPServer(t, filepath.Join(dir, "http-server"), "--auth", "--auth-resource", resource,
		"--auth-issuer", "http://as.test", "--auth-introspect", intro.URL, "--auth-client-id", "rs",
		"--auth-scopes", "mcp", "--auth-tool-scopes", "sleep=mcp:sleep")
	base := strings.TrimSuffix(url, "/mcp")

	send := func(token string, hdr map[string]string, body string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	for _, tok := range []string{"", "forged", "elsewhere"} {
		resp, _ := send(tok, nil, initialize)
		ch := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != 401 || !strings.Contains(ch, `resource_metadata="http://mcp.test/.well-known/oauth-protected-resource/mcp"`) || !strings.Contains(ch, `scope="mcp"`) {
			t.Errorf("token %q: %d %q", tok, resp.StatusCode, ch)
		}
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		var md struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if resp.StatusCode != 200 || md.Resource != resource || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != "http://as.test" {
			t.Errorf("GET %s: %d %+v", p, resp.StatusCode, md)
		}
	}

	// The generated client with alice's token: the tool runs as alice.
	ctx := context.Background()
	call := func(token string) error {
		tr := streamhttp.NewClientTransport(url, streamhttp.ClientOptions{HTTPClient: &http.Client{Transport: bearer(token)}, Era: streamhttp.EraModern, Revisions: []session.Revision{mcp.Revision()}})
		cs, err := mcp.Connect(ctx, tr, session.Implementation{Name: "e2e", Version: "0"}, nil)
		if err != nil {
			return err
		}
		defer cs.Close(ctx)
		_, err = cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "sleep", Arguments: map[string]json.RawMessage{"ms": json.RawMessage("1")}})
		return err
	}
	if err := call("alice"); err != nil {
		t.Fatalf("alice's sleep: %v", err)
	}
	records.waitFor(t, "sleep started as alice", func(r map[string]any) bool { return r["msg"] == "sleep started" && r["subject"] == "alice" })
	if err := call("bob"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("bob's sleep without mcp:sleep: %v, want a 403", err)
	}

	// A legacy session of alice's is unknown to bob.
	resp, _ := send("alice", nil, initialize)
	sid := resp.Header.Get(streamhttp.HeaderSessionID)
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("alice's initialize: %d", resp.StatusCode)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	hdr := map[string]string{streamhttp.HeaderSessionID: sid, streamhttp.HeaderProtocolVersion: "2025-11-25"}
	if resp, body := send("bob", hdr, ping); resp.StatusCode != 404 {
		t.Errorf("bob in alice's session: %d %s", resp.StatusCode, body)
	}
	if resp, body := send("alice", hdr, ping); resp.StatusCode != 200 {
		t.Errorf("alice in her session: %d %s", resp.StatusCode, body)
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
