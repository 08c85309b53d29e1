package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"

	extools "github.com/mcpgen/mcpgen/examples/stdio-server/tools"
)

// pagedServer is a 2025-11-25 (legacy era) server whose tools/list gives
// one tool per page, so the snapshot must follow nextCursor.
type pagedServer struct {
	tools []mcp20251125.Tool
	loop  bool // every page names the same nextCursor
}

func (s *pagedServer) ListTools(_ context.Context, p *mcp20251125.PaginatedRequestParams) (*mcp20251125.ListToolsResult, error) {
	i := 0
	if p != nil && p.Cursor != nil {
		i, _ = strconv.Atoi(*p.Cursor)
	}
	res := &mcp20251125.ListToolsResult{Tools: s.tools[i : i+1]}
	if s.loop {
		again := "0"
		res.NextCursor = &again
		return res, nil
	}
	if i+1 < len(s.tools) {
		next := strconv.Itoa(i + 1)
		res.NextCursor = &next
	}
	return res, nil
}

func (s *pagedServer) CallTool(context.Context, *mcp20251125.CallToolRequestParams) (*mcp20251125.CallToolResult, error) {
	return &mcp20251125.CallToolResult{Content: []mcp20251125.ContentBlock{}}, nil
}

// httpServer serves pagedServer over Streamable HTTP behind a check of
// the Authorization header, and returns its URL.
func httpServer(t *testing.T, toolsJSON string) string { return httpServerOf(t, toolsJSON, false) }

func httpServerOf(t *testing.T, toolsJSON string, loop bool) string {
	var tools []mcp20251125.Tool
	if err := json.Unmarshal([]byte(toolsJSON), &tools); err != nil {
		t.Fatal(err)
	}
	srv := mcp20251125.NewServer(session.Implementation{Name: "paged", Version: "0.0.1"}, &pagedServer{tools: tools, loop: loop})
	h := streamhttp.NewHandler(srv, streamhttp.Options{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" || r.Header.Get("X-Api-Key") != "k" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

const pagedTools = `[
 {"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},
  "outputSchema":{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}},
 {"name":"echo","description":"Echoes.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},
 {"name":"shape","inputSchema":{"type":"object","properties":{"s":{"oneOf":[{"type":"string"},{"type":"number"}]}}}}
]`

// TestFromServerHTTP snapshots a legacy-era HTTP server that pages its
// tools and wants two headers, regenerates offline from the snapshot with
// the same bytes, and checks the server against it, unchanged and changed.
func TestFromServerHTTP(t *testing.T) {
	url := httpServer(t, pagedTools)
	dir := t.TempDir()
	out := filepath.Join(dir, "acme")
	code, _, errs := runCLI("tools", "--from-server", url, "--out", out)
	if code != 1 || !strings.Contains(errs, "401") {
		t.Errorf("without the headers: exit %d, %s; want 1 naming the 401", code, errs)
	}
	hdr := []string{"--header", "Authorization: Bearer s3cret", "--header", "X-Api-Key: k"}
	code, _, errs = runCLI(append([]string{"tools", "--from-server", url, "--out", out}, hdr...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	snap, err := os.ReadFile(filepath.Join(out, "snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Server          struct{ Name string }
		ProtocolVersion string
		Tools           []struct{ Name string }
	}
	json.Unmarshal(snap, &s)
	if s.Server.Name != "paged" || s.ProtocolVersion != "2025-11-25" || len(s.Tools) != 3 || s.Tools[2].Name != "shape" {
		t.Errorf("snapshot: %+v\n%s", s, snap)
	}
	src, _ := os.ReadFile(filepath.Join(out, "tools.go"))
	for _, want := range []string{
		"func (c *Caller) Add(ctx context.Context, args *AddArgs) (*AddResult, error)",
		"func (c *Caller) Echo(ctx context.Context, args *EchoArgs) (*mcp.CallToolResult, error)",
		"S json.RawMessage",
		`ServerName = "paged"`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("tools.go lacks %q", want)
		}
	}
	// Offline: the snapshot as a tools file gives the same package.
	again := filepath.Join(dir, "again", "acme")
	os.MkdirAll(again, 0o755)
	os.WriteFile(filepath.Join(again, "snapshot.json"), snap, 0o644)
	if code, _, errs := runCLI("tools", "--tools", filepath.Join(again, "snapshot.json"), "--import", defaultCallerImport, "--out", again); code != 0 {
		t.Fatalf("offline: exit %d: %s", code, errs)
	}
	src2, _ := os.ReadFile(filepath.Join(again, "tools.go"))
	if string(src) == string(src2) {
		t.Errorf("offline regeneration names its source by the path given, so it must differ only in the header here")
	}
	// With the snapshot given relative to --out, as a go:generate line in
	// the package directory does, the bytes are the same.
	t.Chdir(again)
	code, _, errs = runCLI("tools", "--tools", "snapshot.json", "--import", defaultCallerImport, "--out", ".")
	if code != 0 {
		t.Fatalf("go:generate form: exit %d: %s", code, errs)
	}
	if src3, _ := os.ReadFile(filepath.Join(again, "tools.go")); string(src3) != string(src) {
		t.Errorf("regenerating from the snapshot (as go generate would) gives other bytes than --from-server")
	}

	check := append([]string{"tools", "--check-server", url, "--snapshot", filepath.Join(out, "snapshot.json")}, hdr...)
	if code, _, errs := runCLI(check...); code != 0 {
		t.Errorf("check against the same server: exit %d: %s", code, errs)
	}
	changed := strings.Replace(pagedTools, `"required":["text"]`, `"required":["text","lang"]},"x":{"type":"object"`, 1)
	changed = strings.Replace(changed, `"text":{"type":"string"}`, `"text":{"type":"string"},"lang":{"type":"string"}`, 1)
	changed = strings.Replace(changed, `"b":{"type":"integer"}`, `"b":{"type":"number"}`, 1)
	url2 := httpServer(t, changed)
	check[2] = url2
	code, _, errs = runCLI(check...)
	if code != 1 {
		t.Fatalf("check against a changed server: exit %d, want 1: %s", code, errs)
	}
	for _, want := range []string{
		"no longer matches",
		`tool "add": argument "b": retyped integer → number`,
		`tool "echo": argument "lang": added (required)`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("report lacks %q:\n%s", want, errs)
		}
	}
}

// TestFromServerStdio snapshots examples/stdio-server as a subprocess (a
// modern-era server) and compiles what it generates, with a program that
// calls a tool through the typed Caller.
func TestFromServerStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example server")
	}
	bin := filepath.Join(t.TempDir(), "stdio-server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/stdio-server").CombinedOutput(); err != nil {
		t.Fatalf("building the example: %v\n%s", err, out)
	}
	dir, err := os.MkdirTemp("testdata", "fromserver")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	out := filepath.Join(dir, "stdiotools")
	code, _, errs := runCLI("tools", "--from-server", "--out", out, "--", bin)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	snap, _ := os.ReadFile(filepath.Join(out, "snapshot.json"))
	if !strings.Contains(string(snap), `"protocolVersion": "2026-07-28"`) || !strings.Contains(string(snap), `"name": "sleep"`) {
		t.Errorf("snapshot:\n%s", snap)
	}
	if code, _, errs := runCLI("tools", "--check-server", "--snapshot", filepath.Join(out, "snapshot.json"), "--", bin); code != 0 {
		t.Errorf("check: exit %d: %s", code, errs)
	}
	cmd := exec.Command("go", "vet", "./"+filepath.ToSlash(out))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the generated package: %v\n%s", err, b)
	}
}

// TestFromServerUsage: bad command lines are exit 2 with a message.
func TestFromServerUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "--from-server", "--out", "x"}, "no server"},
		{[]string{"tools", "--from-server", "ftp://x", "--out", "x"}, "not an http:// or https:// URL"},
		{[]string{"tools", "--from-server", "http://x", "--out", "x", "--", "srv"}, "unexpected argument"},
		{[]string{"tools", "--from-server", "--check-server", "http://x"}, "one of --from-server and --check-server"},
		{[]string{"tools", "--from-server", "http://x"}, "needs --out"},
		{[]string{"tools", "--check-server", "http://x"}, "needs --snapshot"},
		{[]string{"tools", "--from-server", "--out", "x", "--header", "A: b", "--", "srv"}, "--header applies to a URL"},
		{[]string{"tools", "--from-server", "http://x", "--out", "x", "--header", "nocolon"}, "want 'Name: value'"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	code, _, errs := runCLI("tools", "--from-server", "--out", t.TempDir(), "--package", "p", "--timeout", "5s", "--", "/nonexistent/server")
	if code != 1 || !strings.Contains(errs, "/nonexistent/server") {
		t.Errorf("a command that does not exist: exit %d, %q", code, errs)
	}
}

// TestFromServerCursorLoop: a server whose nextCursor comes back again is
// an error naming the method and the page, not an endless snapshot.
func TestFromServerCursorLoop(t *testing.T) {
	url := httpServerOf(t, pagedTools, true)
	code, _, errs := runCLI("tools", "--from-server", url, "--out", filepath.Join(t.TempDir(), "p"),
		"--header", "Authorization: Bearer s3cret", "--header", "X-Api-Key: k")
	if code != 1 || !strings.Contains(errs, `tools/list (page 2): nextCursor "0" was already returned`) {
		t.Errorf("exit %d, %q", code, errs)
	}
}

// modernTools implements examples/stdio-server/tools for a modern-era
// HTTP server.
type modernTools struct{}

func (modernTools) Sleep(context.Context, *extools.SleepArgs) (*extools.SleepResult, error) {
	return &extools.SleepResult{}, nil
}
func (modernTools) Echo(_ context.Context, a *extools.EchoArgs) (*extools.EchoResult, error) {
	return &extools.EchoResult{Text: a.Text}, nil
}

// TestFromServerHTTPModern snapshots a 2026-07-28 (modern era) server over
// Streamable HTTP: the client detects the era and negotiates it.
func TestFromServerHTTPModern(t *testing.T) {
	srv := mcp20260728.NewServer(session.Implementation{Name: "modern", Version: "2"}, extools.NewHandler(modernTools{}))
	ts := httptest.NewServer(streamhttp.NewHandler(srv, streamhttp.Options{}))
	t.Cleanup(ts.Close)
	out := filepath.Join(t.TempDir(), "modern")
	if code, _, errs := runCLI("tools", "--from-server", ts.URL, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	snap, _ := os.ReadFile(filepath.Join(out, "snapshot.json"))
	if !strings.Contains(string(snap), `"protocolVersion": "2026-07-28"`) || !strings.Contains(string(snap), `"name": "echo"`) {
		t.Errorf("snapshot:\n%s", snap)
	}
	if code, _, errs := runCLI("tools", "--check-server", ts.URL, "--snapshot", filepath.Join(out, "snapshot.json")); code != 0 {
		t.Errorf("check: exit %d: %s", code, errs)
	}
}
