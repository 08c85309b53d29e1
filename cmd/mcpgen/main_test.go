package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// officialSchemas is the module's copy of the official schemas
// (official/schemas/<revision>/schema.json).
const officialSchemas = "../../official/schemas"

var revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestDumpModelGolden(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			code, out, errs := runCLI("generate", "--schema", filepath.Join(officialSchemas, rev, "schema.json"), "--dump-model")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden := filepath.Join("testdata", "model-"+rev+".json")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/mcpgen -update)", err)
			}
			if out != string(want) {
				t.Errorf("--dump-model differs from %s (run go test ./cmd/mcpgen -update and review the diff)", golden)
			}
		})
	}
}

func TestGenerateWritesPackage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp")
	code, _, errs := runCLI("generate", "--schema", filepath.Join(officialSchemas, "2025-06-18", "schema.json"), "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	stale := filepath.Join(dir, "stale.go")
	os.WriteFile(stale, []byte(generatedHeader+"\n\npackage mcp\n"), 0o644)
	mine := filepath.Join(dir, "mine.go")
	os.WriteFile(mine, []byte("package mcp\n"), 0o644)
	if code, _, errs := runCLI("generate", "--schema", filepath.Join(officialSchemas, "2025-06-18", "schema.json"), "--out", dir); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a stale generated file was kept")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a user's file was removed: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "doc.go"))
	if err != nil || !bytes.HasPrefix(data, []byte(generatedHeader)) || !bytes.Contains(data, []byte("package mcp\n")) {
		t.Errorf("doc.go: %v\n%s", err, data)
	}
}

// TestBadInput checks that every kind of bad input ends with status 1 (2
// for bad usage) and one message that names the file and, where there is
// one, the JSON pointer.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const draft7 = `"$schema": "http://json-schema.org/draft-07/schema#"`
	// ping makes a test schema an MCP schema: one notification the client sends.
	const ping = `"PingNotification": {"type": "object", "properties": {"method": {"const": "notifications/ping", "type": "string"}}, "required": ["method"]},
		"ClientNotification": {"anyOf": [{"$ref": "#/definitions/PingNotification"}]}`
	aFile := write("plain-file", "x")
	official := filepath.Join(officialSchemas, "2024-11-05", "schema.json")
	out := filepath.Join(dir, "mcp")
	cases := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"missing file", []string{"generate", "--schema", filepath.Join(dir, "nope.json"), "--out", out}, 1,
			[]string{"nope.json", "cannot read schema", "no such file"}},
		{"invalid JSON", []string{"generate", "--schema", write("bad.json", `{"$schema": `), "--out", out}, 1,
			[]string{"bad.json", "invalid JSON"}},
		{"not an object", []string{"generate", "--schema", write("2024-11-05/arr.json", `[]`), "--out", out}, 1,
			[]string{"arr.json", "#", "not a JSON object"}},
		{"not a JSON Schema", []string{"generate", "--schema", write("2024-11-05/nocompile.json", `{`+draft7+`, "definitions": {"X": {"type": 5}}}`), "--out", out}, 1,
			[]string{"nocompile.json", "#/definitions/X/type", "must be a type name or an array of them, got number"}},
		{"not a JSON Schema, in an annotation", []string{"generate", "--schema", write("2024-11-05/badtitle.json", `{`+draft7+`, "definitions": {"X": {"type": "object", "properties": {"a": {"type": "string", "title": 5}}}}}`), "--out", out}, 1,
			[]string{"badtitle.json", "#/definitions/X/properties/a/title", "must be a string, got number"}},
		{"unsupported keyword", []string{"generate", "--schema", write("2024-11-05/oneof.json", `{`+draft7+`, "definitions": {"X": {"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}}}`), "--out", out}, 1,
			[]string{"oneof.json", "#/definitions/X/properties/a/oneOf", `unsupported keyword "oneOf"`}},
		{"unsupported dialect", []string{"generate", "--schema", write("2024-11-05/d4.json", `{"$schema": "http://json-schema.org/draft-04/schema#", "definitions": {}}`), "--out", out}, 1,
			[]string{"d4.json", "#/$schema", "unsupported JSON Schema dialect"}},
		{"unknown revision", []string{"generate", "--schema", write("x.json", `{`+draft7+`, "definitions": {}}`), "--out", out}, 1,
			[]string{"x.json", "--revision"}},
		{"unwritable output", []string{"generate", "--schema", official, "--out", filepath.Join(aFile, "sub")}, 1,
			[]string{"plain-file", "cannot create output directory"}},
		{"unknown flag", []string{"generate", "--bogus"}, 2, []string{"unknown flag: --bogus"}},
		{"missing --schema", []string{"generate", "--out", out}, 2, []string{"--schema or --revision is required"}},
		{"unknown embedded revision", []string{"generate", "--revision", "2025-11-24", "--out", out}, 2, []string{`"2025-11-24"`, "2025-11-25", "--schema"}},
		{"missing --out", []string{"generate", "--schema", official}, 2, []string{"--out is required"}},
		{"bad package", []string{"generate", "--schema", official, "--out", out, "--package", "9x"}, 2, []string{`"9x"`}},
		{"revision contradicts the content", []string{"generate", "--schema", official, "--revision", "2025-11-25", "--out", out}, 1,
			[]string{"2024-11-05", "revision 2025-11-25 was given", "official schema of revision 2024-11-05"}},
		{"malformed revision", []string{"generate", "--schema", official, "--revision", "2024-11-5", "--out", out}, 2, []string{`--revision "2024-11-5"`, "YYYY-MM-DD"}},
		{"keyword package", []string{"generate", "--revision", "2025-11-25", "--out", out, "--package", "type"}, 2, []string{`--package: "type" is a Go keyword`}},
		{"blank package", []string{"generate", "--revision", "2025-11-25", "--out", out, "--package", "_"}, 2, []string{`"_" is the blank identifier`}},
		{"package from --out", []string{"generate", "--revision", "2025-11-25", "--out", filepath.Join(dir, "my-mcp")}, 2, []string{`"my-mcp" is not a Go identifier`, "pass --package"}},
		{"dump-model with --out", []string{"generate", "--revision", "2025-11-25", "--dump-model", "--out", out}, 2, []string{"--dump-model", "--out"}},
		{"empty 2020-12 schema", []string{"generate", "--schema", write("2025-11-25/empty.json", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {}}`), "--out", out}, 1,
			[]string{"empty.json", "#/$defs", "not an MCP schema"}},
		{"no methods", []string{"generate", "--schema", write("2024-11-05/nomethods.json", `{`+draft7+`, "definitions": {"X": {"type": "object", "properties": {"a": {"type": "string"}}}}}`), "--dump-model"}, 1,
			[]string{"nomethods.json", "#/definitions", "not an MCP schema"}},
		{"required self-reference", []string{"generate", "--schema", write("2024-11-05/selfref.json", `{`+draft7+`, "definitions": {`+ping+`, "X": {"type": "object", "properties": {"next": {"$ref": "#/definitions/X"}}, "required": ["next"]}}}`), "--out", out}, 1,
			[]string{"selfref.json", "#/definitions/X/properties/next", "contain itself"}},
		{"unrepresentable construct", []string{"generate", "--schema", write("2024-11-05/nullable.json", `{`+draft7+`, "definitions": {`+ping+`, "X": {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}}}`), "--out", out}, 1,
			[]string{"nullable.json", "#/definitions/X/properties/n"}},
		{"scaffold bad import path", []string{"scaffold", "--dir", "../../generated/mcp20251125", "--import", "example.com//mcp", "--out", filepath.Join(dir, "impl.go")}, 2, []string{"--import", "double slash"}},
		{"scaffold alias not a package name", []string{"scaffold", "--dir", "../../generated/mcp20251125", "--alias", "my-mcp", "--out", filepath.Join(dir, "impl.go")}, 2, []string{"--alias", `"my-mcp" is not a Go identifier`}},
		{"scaffold blank package", []string{"scaffold", "--dir", "../../generated/mcp20251125", "--import", "example.com/mcp", "--package", "_", "--out", filepath.Join(dir, "impl.go")}, 2, []string{"--package", "blank identifier"}},
		{"unknown command", []string{"frobnicate"}, 2, []string{"unknown command"}},
		{"no command", nil, 2, []string{"Usage:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, errs)
			}
			if out != "" {
				t.Errorf("wrote to stdout on failure: %q", out)
			}
			for _, s := range c.contains {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr %q does not contain %q", errs, s)
				}
			}
			if c.code == 1 && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("want one message line, got:\n%s", errs)
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"help", "generate"}, {"generate", "--help"}, {"version", "-h"}, {"scaffold", "--help"}, {"revisions", "--help"}, {"help", "revisions"}, {"check", "--help"}, {"validate", "--help"}, {"diff", "--help"}} {
		code, out, errs := runCLI(args...)
		if code != 0 || out == "" || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		code, out, _ := runCLI(args...)
		if code != 0 || !strings.HasPrefix(out, "mcpgen v") || !strings.Contains(out, "go1.") {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
}

// TestGenerateRefusesUserFile: a hand-written file with the name of a
// generated one stops generation (status 1, one line naming it) and is
// left as it was; --force overwrites it.
func TestGenerateRefusesUserFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp")
	if code, _, errs := runCLI("generate", "--revision", "2025-06-18", "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	server := filepath.Join(dir, "server.go")
	mine := []byte("package mcp\n\n// My server, written by hand.\n")
	if err := os.WriteFile(server, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	types, _ := os.ReadFile(filepath.Join(dir, "types.go"))
	code, _, errs := runCLI("generate", "--revision", "2025-11-25", "--out", dir)
	if code != 1 || !strings.Contains(errs, server) || !strings.Contains(errs, "--force") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stderr %q: want 1 and one line naming %s and --force", code, errs, server)
	}
	if got, _ := os.ReadFile(server); !bytes.Equal(got, mine) {
		t.Errorf("the user's server.go was changed:\n%s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "types.go")); !bytes.Equal(got, types) {
		t.Errorf("a refused run changed types.go")
	}
	if code, _, errs := runCLI("generate", "--revision", "2025-11-25", "--out", dir, "--force"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errs)
	}
	if got, _ := os.ReadFile(server); !bytes.HasPrefix(got, []byte(generatedHeader)) {
		t.Errorf("--force did not overwrite server.go")
	}
}

// TestNonASCIIPackageName: Go identifiers may use any Unicode letter.
func TestNonASCIIPackageName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcpé")
	if code, _, errs := runCLI("generate", "--revision", "2024-11-05", "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if doc, _ := os.ReadFile(filepath.Join(dir, "doc.go")); !bytes.Contains(doc, []byte("\npackage mcpé\n")) {
		t.Errorf("doc.go does not declare package mcpé")
	}
}

// TestFailedRunKeepsPreviousBindings: runs that fail (a bad schema, a
// directory where a generated file goes) leave the bindings of the
// previous run byte-identical. internal/outdir's tests inject a failure at
// every file-system step.
func TestFailedRunKeepsPreviousBindings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp")
	if code, _, errs := runCLI("generate", "--revision", "2025-06-18", "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	snapshot := func() map[string]string {
		out := map[string]string{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			out[e.Name()] = string(b)
		}
		return out
	}
	before := snapshot()
	bad := filepath.Join(t.TempDir(), "2025-11-25", "schema.json")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"X": {"type": 5}}}`), 0o644)
	if code, _, _ := runCLI("generate", "--schema", bad, "--out", dir); code != 1 {
		t.Errorf("bad schema: exit %d, want 1", code)
	}
	// A directory where a generated file goes: found before anything is
	// written.
	os.Remove(filepath.Join(dir, "types_json.go"))
	delete(before, "types_json.go")
	if err := os.Mkdir(filepath.Join(dir, "types_json.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	before["types_json.go"] = ""
	code, _, errs := runCLI("generate", "--revision", "2025-11-25", "--out", dir)
	if code != 1 || !strings.Contains(errs, "types_json.go") {
		t.Errorf("directory in the way: exit %d, stderr %q", code, errs)
	}
	after := snapshot()
	if len(after) != len(before) {
		t.Errorf("files: %d before, %d after", len(before), len(after))
	}
	for name, want := range before {
		if after[name] != want {
			t.Errorf("%s changed by a failed run", name)
		}
	}
}
