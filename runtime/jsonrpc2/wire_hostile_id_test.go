package jsonrpc2

import (
	"context"
	"strings"
	"testing"
)

// Issue 11, must-show 4: string ids that encoding/json would decode lossily
// (unpaired surrogates, invalid UTF-8) stay distinct, are answered with the
// exact bytes the peer sent, and a cancel for one never reaches another.
func TestWireLossyStringIDsStayDistinct(t *testing.T) {
	p := newRawPeer(t)
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	p.conn.Handle("wait", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			return "late", nil
		}
	})
	ids := []string{`"\ud800"`, `"\udbff"`, `"\uDC00"`, "\"\xff\"", "\"\xfe\"", `"\ud800x"`, `"\u00e9"`}
	for _, id := range ids {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"wait"}`)
	}
	for range ids {
		<-started // every request was admitted: none was dropped as a duplicate
	}
	// Cancel only the first; the others must still answer.
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\ud800"}}`)
	if rest := p.sync("s1"); len(rest) != 0 {
		t.Fatalf("unexpected lines after cancel: %q", rest)
	}
	close(release)
	got := map[string]bool{}
	for range ids[1:] {
		l := p.next()
		for _, id := range ids {
			want := id
			if id == `"\u00e9"` {
				want = `"é"` // lossless: re-encoded as its value
			}
			if strings.HasPrefix(l, `{"jsonrpc":"2.0","id":`+want+`,"result":"done"}`) {
				got[id] = true
			}
		}
	}
	for _, id := range ids[1:] {
		if !got[id] {
			t.Errorf("no response carrying id %q exactly", id)
		}
	}
	if got[ids[0]] {
		t.Errorf("cancelled request %s answered", ids[0])
	}
}

// Lossless escapes keep meaning the same id as their plain spelling.
func TestParseRequestIDEscapesAreValues(t *testing.T) {
	a, _ := ParseRequestID([]byte(`"\u0061\ud83d\ude00"`))
	b, _ := ParseRequestID([]byte("\"a\U0001F600\""))
	if a != b {
		t.Fatalf("%v != %v", a, b)
	}
	c, _ := ParseRequestID([]byte(`"\ud800"`))
	d, _ := ParseRequestID([]byte(`"\udbff"`))
	if c == d || string(c.RawJSON()) != `"\ud800"` {
		t.Fatalf("lone surrogates collide or lose their text: %s %s", c.RawJSON(), d.RawJSON())
	}
	if v, ok := c.StringValue(); !ok || v != "\ufffd" || !c.IsString() {
		t.Fatalf("StringValue = %q, %v", v, ok)
	}
}

// A UTF-8 byte order mark at the start of the stream is skipped, so the
// first request is read; later the same bytes are not special.
func TestWireBOMSkipped(t *testing.T) {
	p := newRawPeer(t)
	p.send("\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if l := p.next(); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,`) || strings.Contains(l, "-32700") {
		t.Fatalf("first line with BOM answered with %s", l)
	}
	p.send("\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if l := p.next(); !strings.Contains(l, `-32700`) {
		t.Fatalf("BOM mid-stream answered with %s", l)
	}
}
