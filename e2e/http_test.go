package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHTTPExamplesPerEra runs examples/http-server and examples/http-client
// as real processes over loopback TCP, once per era, and checks the
// cancellation rule of each era in the server's --log-format json records:
// legacy, the client's notifications/cancelled is applied with its reason;
// modern, the closed stream is the cancellation and the server sends none.
func TestHTTPExamplesPerEra(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	dir := buildHTTPExamples(t, "http-server", "http-client")
	url, records := startHTTPServer(t, filepath.Join(dir, "http-server"))

	for _, tc := range []struct {
		era, source, report string
	}{
		{"legacy", "peer notification", "sleep cancelled after … (notifications/cancelled sent): http-client gave up after 200ms"},
		{"modern", "stream closed", "sleep cancelled after … (response stream closed): http-client gave up after 200ms"},
	} {
		t.Run(tc.era, func(t *testing.T) {
			out, err := exec.Command(filepath.Join(dir, "http-client"), "--era", tc.era, url).Output()
			if err != nil {
				t.Fatalf("http-client: %v\n%s", err, out)
			}
			expectLines(t, strings.Split(strings.TrimSpace(string(out)), "\n"), tc.report, "echo: hello from http-client")
			rec := records.waitFor(t, tc.era+" cancellation record", func(r map[string]any) bool {
				return r["msg"] == "cancellation" && r["era"] == tc.era && r["event"] == "applied"
			})
			if rec["source"] != tc.source || rec["method"] != "tools/call" {
				t.Errorf("record %v, want source %q", rec, tc.source)
			}
			if tc.era == "legacy" && !strings.Contains(rec["reason"].(string), "gave up after 200ms") {
				t.Errorf("legacy reason %v", rec["reason"])
			}
			records.waitFor(t, tc.era+" sleep interrupted", func(r map[string]any) bool {
				return r["msg"] == "sleep interrupted" && strings.Contains(r["cause"].(string), tc.source)
			})
		})
	}
	items, _, _ := records.snapshot()
	for _, r := range items {
		if r["msg"] == "cancellation" && r["event"] == "sent" {
			t.Errorf("the server sent a cancellation: %v", r)
		}
	}
}

// buildHTTPExamples builds the named examples (with -race when the tests
// run with it) into a temporary directory and returns it.
func buildHTTPExamples(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"build", "-o", dir + string(os.PathSeparator)}
	if raceEnabled {
		args = append(args, "-race")
	}
	for _, n := range names {
		args = append(args, "github.com/mcpgen/mcpgen/examples/"+n)
	}
	build := exec.Command("go", args...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startHTTPServer starts the http-server binary on a free loopback port
// with --log-format json and returns its URL and its stderr records. The
// server is stopped with SIGTERM when the test ends and must exit cleanly.
// extra are further flags (--auth …).
func startHTTPServer(t *testing.T, bin string, extra ...string) (string, *watch[map[string]any]) {
	t.Helper()
	srv := exec.Command(bin, append([]string{"--addr", "127.0.0.1:0", "--log-format", "json"}, extra...)...)
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	records := newWatch[map[string]any]()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var r map[string]any
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				records.add(r)
			}
		}
		records.close()
	}()
	t.Cleanup(func() {
		srv.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("http-server exit: %v", err)
			}
		case <-time.After(10 * time.Second):
			srv.Process.Kill()
			t.Error("http-server did not exit on SIGTERM")
		}
	})
	url := records.waitFor(t, "listening record", func(r map[string]any) bool { return r["msg"] == "listening" })["url"].(string)
	return url, records
}
