package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/generator/tools"
	"github.com/mcpgen/mcpgen/internal/liveclient"
	"github.com/mcpgen/mcpgen/internal/outdir"
)

// defaultCallerImport is the bindings a package generated from a live
// server targets unless --import says otherwise: the newest revision,
// whose Connect (with the older revisions as legacy) reaches either era.
const defaultCallerImport = "github.com/mcpgen/mcpgen/generated/mcp20260728"

// liveFlag reports whether args ask "mcpgen tools" to talk to a server
// (--from-server or --check-server before any "--").
func liveFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--from-server" || a == "--check-server" {
			return true
		}
	}
	return false
}

// fetchLive is how the command reads a server; tests replace it.
var fetchLive = liveclient.Fetch

// runFromServer is "mcpgen tools --from-server" and "--check-server".
func runFromServer(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("tools", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.Bool("from-server", false, "snapshot the server given by URL, or by the command after --, and generate the typed package")
	check := fs.Bool("check-server", false, "compare the server with --snapshot and exit 1, listing the differences, when they differ")
	headers := fs.StringArray("header", nil, "HTTP `header` sent with every request, 'Name: value' (repeatable), e.g. 'Authorization: Bearer TOKEN'")
	snapPath := fs.String("snapshot", "", "the snapshot `file` (default: snapshot.json in --out); written by --from-server, read by --check-server")
	out := fs.String("out", "", "output `directory` of the typed package (--from-server; required)")
	pkg := fs.String("package", "", "Go package `name` of the output (default: base name of --out)")
	imp := fs.String("import", defaultCallerImport, "import `path` of the bindings the package targets")
	timeout := fs.Duration("timeout", 60*time.Second, "give up on the server after this long")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: mcpgen tools --from-server (URL | -- CMD ARGS...) --out DIR [--snapshot FILE] [--header 'Name: value'...]\n"+
			"       mcpgen tools --check-server (URL | -- CMD ARGS...) --snapshot FILE [--header 'Name: value'...]\n\n"+
			"--from-server connects to a running MCP server (Streamable HTTP at URL, either\n"+
			"era, or the command after -- as a stdio subprocess), reads every page of\n"+
			"tools/list (and prompts/list, resources/templates/list where the server\n"+
			"declares them), writes the snapshot file and, from it, a typed package:\n"+
			"a Caller with one method per tool (typed arguments; a typed result where the\n"+
			"tool has an outputSchema) and a PromptCaller. Regenerate offline with\n"+
			"mcpgen tools --tools SNAPSHOT --import PATH --out DIR (e.g. from go generate).\n"+
			"--check-server exits 1 with a report when the server no longer matches the\n"+
			"snapshot (tools, arguments, required, output schemas, prompts). See\n"+
			"docs/typed-callers.md.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	var target liveclient.Target
	pos := fs.Args()
	if dash := fs.ArgsLenAtDash(); dash >= 0 {
		target.Command = pos[dash:]
		pos = pos[:dash]
	}
	switch {
	case *from == *check:
		fmt.Fprintln(stderr, "mcpgen tools: give one of --from-server and --check-server")
		return 2
	case len(pos) > 1 || len(pos) == 1 && len(target.Command) > 0:
		fmt.Fprintf(stderr, "mcpgen tools: unexpected argument %q: give the server as one URL or as a command after --\n", pos[len(pos)-1])
		return 2
	case len(pos) == 0 && len(target.Command) == 0:
		fmt.Fprintln(stderr, "mcpgen tools: no server: give its URL, or its command after --")
		return 2
	case len(pos) == 1:
		if !strings.HasPrefix(pos[0], "http://") && !strings.HasPrefix(pos[0], "https://") {
			fmt.Fprintf(stderr, "mcpgen tools: %q is not an http:// or https:// URL (a stdio server's command goes after --)\n", pos[0])
			return 2
		}
		target.URL = pos[0]
	}
	if len(*headers) > 0 {
		if target.URL == "" {
			fmt.Fprintln(stderr, "mcpgen tools: --header applies to a URL, not to a stdio server")
			return 2
		}
		target.Header = http.Header{}
		for _, h := range *headers {
			name, value, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(name) == "" {
				fmt.Fprintf(stderr, "mcpgen tools: --header %q: want 'Name: value'\n", h)
				return 2
			}
			target.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		}
	}
	// A stdio server's stderr is its log: shown only if the snapshot fails.
	serverLog := &tailBuffer{max: 4096}
	target.Stderr = serverLog
	if *check {
		if *snapPath == "" {
			if *out == "" {
				fmt.Fprintln(stderr, "mcpgen tools: --check-server needs --snapshot (or --out, whose snapshot.json it reads)")
				return 2
			}
			*snapPath = filepath.Join(*out, "snapshot.json")
		}
		committed, err := os.ReadFile(*snapPath)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *snapPath, unwrapPath(err))
			return 1
		}
		live, code := snapshotOf(target, *timeout, stderr, serverLog)
		if code != 0 {
			return code
		}
		lines, err := tools.Drift(committed, live)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *snapPath, err)
			return 1
		}
		if len(lines) == 0 {
			return 0
		}
		var b strings.Builder
		fmt.Fprintf(&b, "mcpgen tools --check-server: %s no longer matches %s:\n", target.Where(), *snapPath)
		for _, l := range lines {
			fmt.Fprintf(&b, "\t%s\n", l)
		}
		b.WriteString("run mcpgen tools --from-server with the same server to update the snapshot, then go generate, and commit both\n")
		io.WriteString(stderr, b.String())
		return 1
	}
	if *out == "" {
		fmt.Fprintln(stderr, "mcpgen tools: --from-server needs --out")
		return 2
	}
	if msg := outDirError(*out); msg != "" {
		fmt.Fprintf(stderr, "mcpgen tools: %s\n", msg)
		return 2
	}
	if err := checkImportPath(*imp); err != nil {
		fmt.Fprintf(stderr, "mcpgen tools: --import %s: %v\n", *imp, err)
		return 2
	}
	name := *pkg
	if name == "" {
		abs, err := filepath.Abs(*out)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *out, err)
			return 1
		}
		name = filepath.Base(abs)
	}
	if err := checkIdentifier(name); err != nil {
		fmt.Fprintf(stderr, "mcpgen tools: package name %q: %v; pass --package\n", name, err)
		return 2
	}
	if *snapPath == "" {
		*snapPath = filepath.Join(*out, "snapshot.json")
	}
	data, code := snapshotOf(target, *timeout, stderr, serverLog)
	if code != 0 {
		return code
	}
	// The header names the snapshot as a go:generate line in --out would:
	// relative to --out, so both write the same bytes.
	source := filepath.ToSlash(*snapPath)
	if rel, err := filepath.Rel(*out, *snapPath); err == nil {
		source = filepath.ToSlash(rel)
	}
	files, err := tools.Generate(data, tools.Options{Package: name, Import: *imp, ToolsFile: source, Version: mcpgenVersion})
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	if err := os.MkdirAll(filepath.Dir(*snapPath), 0o755); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*snapPath, data, 0o644); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	if err := outdir.Write(*out, files, outdir.Options{Foreign: notTools}); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	return 0
}

// snapshotOf reads the server and returns its snapshot file, or an exit
// code after saying what failed.
func snapshotOf(t liveclient.Target, timeout time.Duration, stderr io.Writer, serverLog *tailBuffer) ([]byte, int) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	snap, err := fetchLive(ctx, t)
	if err == nil {
		var data []byte
		if data, err = snap.Marshal(); err == nil {
			return data, 0
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (--timeout %s)", err, timeout)
	}
	fmt.Fprintf(stderr, "mcpgen tools: %s: %v\n", t.Where(), err)
	if serverLog.Len() > 0 {
		fmt.Fprintf(stderr, "the server's stderr ended with:\n%s\n", strings.TrimRight(serverLog.String(), "\n"))
	}
	return nil, 1
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// Len is the number of bytes kept.
func (t *tailBuffer) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.b)
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
