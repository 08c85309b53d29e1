// Package quickstart_test checks the quickstart the README starts with: its
// hand-written Go stays within the line budgets of issue 26 (shorter than
// the same programs on go-sdk), and the programs work end to end.
package quickstart_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/quickstart/tools"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// generated is the header line of a generated Go file.
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// codeLines counts the lines of a Go file that hold code: not blank, not
// only comments. It returns 0 for a generated file.
func codeLines(t *testing.T, path string) int {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if generated.Match(src) {
		return 0
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(path, -1, len(src)), src, func(pos token.Position, msg string) { t.Fatalf("%s: %s", pos, msg) }, 0)
	lines := map[int]bool{}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line's end
		}
		lines[fset.Position(pos).Line] = true
	}
	return len(lines)
}

// handWritten counts the code lines of the hand-written Go files in dirs.
func handWritten(t *testing.T, dirs ...string) int {
	n := 0
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				n += codeLines(t, f)
			}
		}
	}
	return n
}

// TestLineBudgets: each program, with the hand-written Go of the tools
// package it imports, within issue 26's budget, graceful shutdown with a
// bound included; and, counting the servers' tools.json too (its non-blank
// lines), still fewer lines than the same programs on go-sdk, as issue 26
// measured them (64 for stdio, 68 for HTTP, 37 for the client).
func TestLineBudgets(t *testing.T) {
	toolsJSON, err := os.ReadFile("tools/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	jsonLines := 0
	for _, l := range strings.Split(string(toolsJSON), "\n") {
		if strings.TrimSpace(l) != "" {
			jsonLines++
		}
	}
	for _, c := range []struct {
		program string
		max     int // the Go budget
		goSDK   int // go-sdk's lines for the same program (issue 26)
	}{
		{"stdio-server", 35, 64},
		{"http-server", 40, 68},
		{"client", 30, 37},
	} {
		got := handWritten(t, c.program, "tools")
		total := got
		if c.program != "client" { // the servers own the tool schemas
			total += jsonLines
		}
		t.Logf("%s: %d hand-written Go lines (budget %d), %d with tools.json (go-sdk: %d)", c.program, got, c.max, total, c.goSDK)
		if got > c.max {
			t.Errorf("%s: %d hand-written Go lines, over its budget of %d", c.program, got, c.max)
		}
		if total >= c.goSDK {
			t.Errorf("%s: %d lines with tools.json, not fewer than go-sdk's %d", c.program, total, c.goSDK)
		}
	}
	// The same stdio server on go-sdk, live: interop/stdio/gosdk-quickstart
	// (a separate module, since the main module never depends on go-sdk),
	// counted the same two ways as ours: code lines (no blank, no comment)
	// and every non-blank line, comments included. Its schemas are its Go
	// types plus the bounds it sets by hand; ours are tools.json.
	const goSDKFile = "../../interop/stdio/gosdk-quickstart/main.go"
	ours := handWritten(t, "stdio-server", "tools") + jsonLines
	oursAll := nonBlank(t, "stdio-server/main.go", "tools/gen.go", "tools/tools.json")
	theirs, theirsAll := codeLines(t, goSDKFile), nonBlank(t, goSDKFile)
	t.Logf("stdio server with its schemas: mcpgen %d code lines (%d non-blank with comments), go-sdk %d (%d)", ours, oursAll, theirs, theirsAll)
	if ours >= theirs || oursAll >= theirsAll {
		t.Errorf("the stdio quickstart with tools.json is %d code lines (%d non-blank), not fewer than go-sdk's %d (%d)", ours, oursAll, theirs, theirsAll)
	}
	// The README states these two counts; they must be the measured ones.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if claim := fmt.Sprintf("the server is %d lines of code where the same", ours); !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), claim) {
		t.Errorf("README.md does not say %q (the measured count)", claim)
	}
	if claim := fmt.Sprintf("is %d; `examples/quickstart`'s", theirs); !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), claim) {
		t.Errorf("README.md does not say %q (go-sdk's measured count)", claim)
	}
	if n := codeLines(t, "tools/tools.go"); n != 0 {
		t.Errorf("tools/tools.go is not marked generated")
	}
}

// nonBlank counts the non-blank lines of files, comments included.
func nonBlank(t *testing.T, files ...string) int {
	t.Helper()
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(src), "\n") {
			if strings.TrimSpace(l) != "" {
				n++
			}
		}
	}
	return n
}

// build compiles the quickstart's programs into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the programs")
	}
	bin := t.TempDir()
	out, err := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./stdio-server", "./http-server", "./client").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestStdioQuickstart runs the client against the stdio server, as the
// README shows: add answers, slow reports progress and is cancelled.
func TestStdioQuickstart(t *testing.T) {
	bin := build(t)
	cmd := exec.Command(filepath.Join(bin, "client"), filepath.Join(bin, "stdio-server"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	// Progress comes every second and the call ends at 1.5 s: two lines
	// (one, on a machine slow enough to delay the second past the timeout).
	want := regexp.MustCompile(`^add: 2 \+ 3 = 5\nprogress 0/10 working\n(progress 1/10 working\n)?slow: request 2 \(tools/call\) cancelled by timeout: no response within the 1.5s timeout\n$`)
	if !want.Match(out) {
		t.Fatalf("client printed\n%s\nwant\n%s\nstderr:\n%s", out, want, stderr.String())
	}
}

// TestHTTPQuickstart runs the HTTP server, calls it in both eras the way
// docs/http.md does, cancels slow, and stops the server with
// SIGTERM, which it obeys within its shutdown bound.
func TestHTTPQuickstart(t *testing.T) {
	bin := build(t)
	srv := exec.Command(filepath.Join(bin, "http-server"), "--addr", "127.0.0.1:0")
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	urls := make(chan string, 1)
	var logged bytes.Buffer
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logged.WriteString(sc.Text() + "\n")
			if _, url, ok := strings.Cut(sc.Text(), "url="); ok {
				urls <- url
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(30 * time.Second):
		t.Fatal("the server logged no URL")
	}

	for _, era := range []streamhttp.Era{0, streamhttp.EraLegacy} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		tr, err := streamhttp.Dial(ctx, url, streamhttp.ClientOptions{Era: era, Revisions: []session.Revision{mcp.Revision(), mcp20251125.Revision()}})
		if err != nil {
			t.Fatalf("era %v: Dial: %v", era, err)
		}
		opts := []session.ClientOption{session.WithClientLegacy(mcp20251125.Revision())}
		if era == streamhttp.EraLegacy {
			opts = append(opts, session.WithVersion("2025-11-25"))
		}
		sess, err := mcp.Connect(ctx, tr, session.Implementation{Name: "test", Version: "1"}, nil, opts...)
		if err != nil {
			t.Fatalf("era %v: Connect: %v", era, err)
		}
		if sess.ServerInfo().Name != "quickstart" || sess.ServerCapabilities().Tools == nil {
			t.Errorf("era %v: server info %+v, capabilities %+v", era, sess.ServerInfo(), sess.ServerCapabilities())
		}
		var progress []float64
		calc := tools.NewCaller(sess.WithCallOptions(mcp.WithProgress(func(p *mcp.ProgressNotificationParams) { progress = append(progress, p.Progress) })))
		sum, err := calc.Add(ctx, &tools.AddArgs{A: 2, B: 3})
		if err != nil || sum.Sum != 5 {
			t.Fatalf("era %v (%s): add: %v %v", era, sess.ProtocolVersion(), sum, err)
		}
		slowCtx, stop := context.WithTimeout(ctx, 1500*time.Millisecond)
		_, err = calc.Slow(slowCtx, &tools.SlowArgs{Seconds: 10})
		stop()
		if slowCtx.Err() == nil || err == nil {
			t.Fatalf("era %v: slow returned %v before its cancellation", era, err)
		}
		if len(progress) == 0 {
			t.Errorf("era %v (%s): no progress from slow", era, sess.ProtocolVersion())
		}
		if err := sess.Close(ctx); err != nil {
			t.Errorf("era %v: Close: %v", era, err)
		}
		cancel()
	}

	start := time.Now()
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-logDone
	if err := srv.Wait(); err != nil {
		t.Fatalf("server after SIGTERM: %v\n%s", err, logged.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("server took %v to stop after SIGTERM (bound 2 s + 2 s)", took)
	}
}

// TestStdioServerSignal: the stdio server stops on SIGTERM while its
// client keeps stdin open, and exits 0 within its shutdown bound.
func TestStdioServerSignal(t *testing.T) {
	bin := build(t)
	srv := exec.Command(filepath.Join(bin, "stdio-server"))
	stdin, err := srv.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	// One answered request shows the server is serving (and its signal
	// handler installed) before the signal is sent.
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize answered %q, %v", line, err)
	}
	start := time.Now()
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("stdio-server after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("stdio-server still running %v after SIGTERM", time.Since(start))
	}
}
