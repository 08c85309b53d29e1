package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testsupport/scaletest"
)

// TestScale generates the official 2025-11-25 schema plus 1,000 extra
// definitions of 50 properties each with a built mcpgen, in its own
// process so its peak memory can be read, and holds it to 10 s of CPU and
// 500 MB. It takes a while and a quiet machine, so it runs only when
// MCPGEN_SCALE=1 (scripts/suites/60-scale.sh).
func TestScale(t *testing.T) {
	if os.Getenv("MCPGEN_SCALE") != "1" {
		t.Skip("set MCPGEN_SCALE=1 to run (scripts/suites/60-scale.sh)")
	}
	const (
		maxCPU = 10 * time.Second
		maxRSS = 500 << 20
	)
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpgen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data, err := scaletest.Schema("2025-11-25", 1000, 50)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "generate", "--schema", src, "--revision", "2025-11-25", "--package", "scale", "--out", filepath.Join(dir, "scale"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	rss := int64(ru.Maxrss) << 10 // Linux reports KiB
	types, _ := os.Stat(filepath.Join(dir, "scale", "types.go"))
	t.Logf("schema %.1f MB, %d extra definitions x 50 properties: wall %v, CPU %v (user %v, sys %v), max RSS %d MB, types.go %.1f MB",
		float64(len(data))/1e6, 1000, wall.Round(time.Millisecond), cpu.Round(time.Millisecond),
		cmd.ProcessState.UserTime().Round(time.Millisecond), cmd.ProcessState.SystemTime().Round(time.Millisecond),
		rss>>20, float64(types.Size())/1e6)
	if cpu > maxCPU {
		t.Errorf("generation took %v of CPU, want at most %v", cpu, maxCPU)
	}
	if rss > maxRSS {
		t.Errorf("generation peaked at %d MB, want at most %d MB", rss>>20, maxRSS>>20)
	}
}
