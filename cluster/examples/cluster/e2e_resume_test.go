package main

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A legacy SSE stream outlives the replica process that held it: r1 runs
// a long call and stores its progress event in JetStream; the client's
// connection breaks before that event reached it, r1 is SIGKILLed, and a
// GET with Last-Event-ID through the round-robin proxy (another replica
// process) replays exactly that event, once; the answer never comes (its
// work died with r1), so the response ends with the retry field.
func TestClusterE2EResumeAfterSIGKILL(t *testing.T) {
	e := startE2E(t)
	r1 := e.replica("r1")
	s := e.legacy(r1.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cctx, cut := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(cctx, http.MethodPost, r1.URL, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"ms":600000,"tag":"resume"},"_meta":{"progressToken":"p"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// The priming event's id is what the client holds; the progress event
	// after it is stored (JetStream acknowledged it before it was written)
	// but, as far as the client knows, lost with the connection.
	var ids []string
	sc := bufio.NewScanner(resp.Body)
	for len(ids) < 2 && sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			ids = append(ids, id)
		}
	}
	cut()
	resp.Body.Close()
	if len(ids) != 2 || !strings.HasSuffix(ids[0], "_0") || !strings.HasSuffix(ids[1], "_1") {
		t.Fatalf("POST stream ids %v: want the priming event and one more", ids)
	}
	e.c.Kill(r1, syscall.SIGKILL)

	for range 2 { // round robin: two other replica processes
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", s.sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Last-Event-ID", ids[0])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got, data []string
		retry := false
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				got = append(got, line[4:])
			case strings.HasPrefix(line, "data: "):
				data = append(data, line[6:])
			case strings.HasPrefix(line, "retry: "):
				retry = true
			}
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || len(got) != 1 || got[0] != ids[1] || !strings.Contains(data[0], "started on r1") || !retry {
			t.Fatalf("resume through the proxy: %d ids %v data %v retry %v; want exactly %s (r1's progress) and the retry field", resp.StatusCode, got, data, retry, ids[1])
		}
	}
}
