package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/official"
)

// TestGenerateFromEmbeddedRevision generates each official revision with
// no schema file at all, and checks the header names the embedded source
// and its digest.
func TestGenerateFromEmbeddedRevision(t *testing.T) {
	for _, rev := range official.Revisions() {
		t.Run(rev, func(t *testing.T) {
			embedded := filepath.Join(t.TempDir(), "mcp")
			if code, _, errs := runCLI("generate", "--revision", rev, "--package", "mcp", "--out", embedded); code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			doc, err := os.ReadFile(filepath.Join(embedded, "doc.go"))
			if err != nil {
				t.Fatal(err)
			}
			m, err := schemaInput{revision: rev}.load()
			if err != nil {
				t.Fatal(err)
			}
			// The version line names what "mcpgen version" prints.
			_, v, _ := runCLI("version")
			wantHeader := generatedHeader + "\n// mcpgen version: " + strings.Fields(v)[1] + "\n// Source: official schema " + rev + " (MCP revision " + rev + ", sha256 " + m.SHA256 + ").\n"
			if !bytes.HasPrefix(doc, []byte(wantHeader)) {
				t.Errorf("doc.go header:\n%s\nwant:\n%s", firstLines(doc, 3), wantHeader)
			}
		})
	}
}

// TestHeaderNamesSourceRelativeToOutput checks that a user file is named
// as seen from the output directory, so the header does not depend on
// where mcpgen ran.
func TestHeaderNamesSourceRelativeToOutput(t *testing.T) {
	root := t.TempDir()
	data, _ := official.Schema("2025-06-18")
	src := filepath.Join(root, "spec", "schema.json")
	os.MkdirAll(filepath.Dir(src), 0o755)
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "internal", "mcp")
	if code, _, errs := runCLI("generate", "--schema", src, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc, _ := os.ReadFile(filepath.Join(out, "types.go"))
	if want := "// Source: ../../spec/schema.json (MCP revision 2025-06-18, sha256 "; !bytes.Contains(doc, []byte(want)) {
		t.Errorf("header:\n%s\nwant it to contain %q", firstLines(doc, 2), want)
	}
}

// TestSchemaFromStdin reads the schema from standard input (--schema -).
func TestSchemaFromStdin(t *testing.T) {
	data, _ := official.Schema("2024-11-05")
	defer func(r io.Reader) { stdin = r }(stdin)
	stdin = bytes.NewReader(data)
	out := filepath.Join(t.TempDir(), "mcp")
	if code, _, errs := runCLI("generate", "--schema", "-", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc, _ := os.ReadFile(filepath.Join(out, "doc.go"))
	if want := "// Source: <stdin> (MCP revision 2024-11-05, "; !bytes.Contains(doc, []byte(want)) {
		t.Errorf("header:\n%s\nwant it to contain %q", firstLines(doc, 2), want)
	}

	stdin = strings.NewReader(`{"$schema": `)
	code, _, errs := runCLI("generate", "--schema", "-", "--revision", "2024-11-05", "--dump-model")
	if code != 1 || !strings.HasPrefix(errs, "mcpgen: <stdin>: invalid JSON") {
		t.Errorf("bad stdin: exit %d, stderr %q; want 1 and an error naming <stdin>", code, errs)
	}
}

// TestRevisionsListsEmbedded checks mcpgen revisions: one line per
// embedded revision with its dialect and the digest headers record.
func TestRevisionsListsEmbedded(t *testing.T) {
	code, out, errs := runCLI("revisions")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	revs, exts, _ := strings.Cut(strings.TrimSpace(out), "\n\n")
	lines := strings.Split(revs, "\n")
	if len(lines) != 1+len(official.Revisions()) || !strings.HasPrefix(lines[0], "REVISION") {
		t.Fatalf("output:\n%s", out)
	}
	if extLines := strings.Split(exts, "\n"); len(extLines) != 1+len(official.Extensions()) || !strings.HasPrefix(extLines[0], "EXTENSION") {
		t.Fatalf("no table of the embedded extensions in:\n%s", out)
	}
	if line := "tasks      io.modelcontextprotocol/tasks  2026-07-28  10933a5003097bbccb03d964e6a5f7a2819cc4d7a1d07e27c6765cbf5da35c5c\n"; !strings.Contains(out, line) {
		t.Errorf("no line %q in:\n%s", line, out)
	}
	want := map[string]string{
		"2024-11-05": "draft-07  61cea2392d4f284092d09bc84b9ac488c0d5618ac2b38a56942fc5b99fd960ce",
		"2025-11-25": "2020-12   268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
		"2026-07-28": "2020-12   ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
	}
	for rev, rest := range want {
		if !strings.Contains(out, rev+"  "+rest+"\n") {
			t.Errorf("no line %q in:\n%s", rev+"  "+rest, out)
		}
	}
	if code, _, _ := runCLI("revisions", "extra"); code != 2 {
		t.Errorf("revisions extra: exit %d, want 2", code)
	}
}

func firstLines(b []byte, n int) string {
	lines := strings.SplitN(string(b), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// endless is an input that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestSchemaSizeBounded: an endless standard input (or /dev/zero) is
// refused once it passes the limit, instead of exhausting memory.
func TestSchemaSizeBounded(t *testing.T) {
	defer func(r io.Reader, n int64) { stdin, maxSchemaBytes = r, n }(stdin, maxSchemaBytes)
	stdin, maxSchemaBytes = endless{}, 1<<20
	code, _, errs := runCLI("generate", "--schema", "-", "--revision", "2025-11-25", "--dump-model")
	if code != 1 || !strings.Contains(errs, "<stdin>: cannot read schema: larger than 1 MiB") {
		t.Errorf("exit %d, stderr %q; want 1 and the limit named", code, errs)
	}
}
