package quickstart_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/quickstart/tools"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// panicky's Add panics, as a buggy tool does.
type panicky struct{}

func (panicky) Add(_ context.Context, a *tools.AddArgs) (*tools.AddResult, error) {
	sums := []float64{}
	return &tools.AddResult{Sum: sums[int(a.A)]}, nil // index out of range
}

func (panicky) Slow(context.Context, *tools.SlowArgs) (*tools.SlowResult, error) {
	return &tools.SlowResult{}, nil
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPanickingToolIsNamed: a tool that panics gets the caller a -32603
// and the server's log a structured record naming the tool and the line
// that panicked (issue 36.8), not only method=tools/call.
func TestPanickingToolIsNamed(t *testing.T) {
	var logged syncBuffer
	log := slog.New(slog.NewJSONHandler(&logged, nil))
	srv := mcp.NewServer(session.Implementation{Name: "panicky", Version: "0"}, tools.NewHandler(panicky{}), session.WithLogger(log))
	a, b := jsonrpc2.NewPipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), a) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := mcp.Connect(ctx, b, session.Implementation{Name: "t", Version: "0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tools.NewCaller(sess).Add(ctx, &tools.AddArgs{A: 1, B: 2})
	if err == nil || !strings.Contains(err.Error(), "-32603") && !strings.Contains(err.Error(), "internal error") {
		t.Errorf("calling the panicking tool: %v, want -32603", err)
	}
	if err := sess.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Msg    string `json:"msg"`
		Method string `json:"method"`
		Panic  struct {
			Tool, Value, At string
			Frames          map[string]string
		} `json:"panic"`
	}
	for _, line := range strings.Split(logged.String(), "\n") {
		if strings.Contains(line, "panicked") {
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
		}
	}
	if rec.Method != "tools/call" || rec.Panic.Tool != "add" || !strings.Contains(rec.Panic.Value, "index out of range") ||
		!strings.Contains(rec.Panic.At, "panicky.Add") || !strings.Contains(rec.Panic.At, "panic_test.go:") || len(rec.Panic.Frames) == 0 {
		t.Errorf("the panic's record %+v does not name the tool add, its value and line\nlog:\n%s", rec, logged.String())
	}
}
