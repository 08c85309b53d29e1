package interop

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestGoSDKQuickstartIsTheSameProgram: the go-sdk version of the
// quickstart's stdio server, which examples/quickstart's TestLineBudgets
// counts against ours, does what ours does under the quickstart's own
// client: add answers, slow reports progress and is cancelled at 1.5 s.
func TestGoSDKQuickstartIsTheSameProgram(t *testing.T) {
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./gosdk-quickstart", "github.com/mcpgen/mcpgen/examples/quickstart/client")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "client"), filepath.Join(bin, "gosdk-quickstart")).Output()
	if err != nil {
		t.Fatalf("the quickstart client against the go-sdk server: %v\n%s", err, out)
	}
	want := regexp.MustCompile(`^add: 2 \+ 3 = 5\nprogress 0/10 working\n(progress 1/10 working\n)?slow: request 2 \(tools/call\) cancelled by timeout: no response within the 1.5s timeout\n$`)
	if !want.Match(out) {
		t.Fatalf("client printed\n%s\nwant\n%s", out, want)
	}
}
