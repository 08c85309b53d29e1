//go:build unix

package jsonrpc2

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// osPipes returns a stdio transport writing to an os.Pipe (so it writes on
// the caller's goroutine and can try a write) and the pipe's read end; the
// transport reads from a second pipe whose write end is returned too.
func osPipes(t *testing.T) (tr *StdioTransport, out *os.File, in *os.File) {
	t.Helper()
	outR, outW := osPipe(t)
	inR, inW := osPipe(t)
	tr = NewStdioTransport(inR, outW, StdioOptions{})
	t.Cleanup(func() {
		tr.Close()
		outR.Close()
		inW.Close()
	})
	if tr.wsem == nil || tr.pipe == nil {
		t.Fatal("an os.Pipe is not written on the caller's goroutine")
	}
	return tr, outR, inW
}

// fill writes newlines to w, which must be non-blocking, until the pipe
// takes no more, and returns how many it took.
func fill(t *testing.T, w *os.File) int {
	t.Helper()
	rc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, chunk := range []int{4096, 1} { // a pipe takes small writes whole or not at all
		b := []byte(strings.Repeat("\n", chunk))
		for {
			n := writeNonBlocking(rc, b)
			if n == 0 {
				break
			}
			total += n
		}
	}
	return total
}

// readNow returns what is in the pipe f now, without waiting for more.
func readNow(t *testing.T, f *os.File) string {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	var n int
	if err := rc.Read(func(fd uintptr) bool {
		n, _ = syscall.Read(int(fd), buf)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return string(buf[:max(n, 0)])
}

// The writers that Close can interrupt are written on the caller's
// goroutine; concurrent messages, small and far over a pipe's atomic size,
// still arrive whole, one per line.
func TestStdioInlineWritesDoNotInterleave(t *testing.T) {
	tr, out, _ := osPipes(t)
	const writers, each = 8, 20
	want := map[string]int{}
	var msgs [][]byte
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			m := fmt.Sprintf(`{"w":%d,"i":%d,"pad":%q}`, w, i, strings.Repeat(string(rune('a'+w)), (i*7919)%200000))
			want[m]++
			msgs = append(msgs, []byte(m))
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := tr.Write(context.Background(), msgs[w*each+i]); err != nil {
					t.Errorf("Write: %v", err)
				}
			}
		}(w)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for n := 0; n < writers*each; n++ {
		if !sc.Scan() {
			t.Fatalf("after %d lines: %v", n, sc.Err())
		}
		if want[sc.Text()] == 0 {
			t.Fatalf("line %d is not a message written (torn or interleaved): %.80q…", n, sc.Text())
		}
		want[sc.Text()]--
	}
	wg.Wait()
}

// Close ends a write blocked on a pipe nobody reads, and a write waiting
// for its turn behind it gives up when its ctx ends.
func TestStdioInlineWriteAbandoned(t *testing.T) {
	tr, _, _ := osPipes(t)
	big := []byte(`"` + strings.Repeat("x", 1<<20) + `"`)
	blocked := make(chan error, 1)
	go func() { blocked <- tr.Write(context.Background(), big) }()
	for len(tr.wsem) == 0 { // until the big write holds the turn
		runtime.Gosched()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := tr.Write(ctx, []byte(`{}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Write waiting for its turn returned %v, want the ctx's error", err)
	}
	tr.Close()
	select {
	case err := <-blocked:
		if !errors.Is(err, ErrTransportClosed) {
			t.Fatalf("blocked Write returned %v, want ErrTransportClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the blocked write did not end at Close")
	}
}

// tryWrite writes a small line whole when that cannot block, and otherwise
// writes nothing.
func TestStdioTryWrite(t *testing.T) {
	tr, out, _ := osPipes(t)
	if !tr.tryWrite([]byte(`{"a":1}`)) {
		t.Fatal("tryWrite declined an idle pipe with room")
	}
	if tr.tryWrite([]byte(`{"a":` + strings.Repeat(" ", atomicPipeWrite) + `1}`)) {
		t.Fatal("tryWrite wrote a message over the atomic pipe write size")
	}
	if tr.tryWrite([]byte("{\n}")) {
		t.Fatal("tryWrite wrote a message needing compaction")
	}
	tr.wsem <- struct{}{} // someone else is writing
	if tr.tryWrite([]byte(`{"a":2}`)) {
		t.Fatal("tryWrite wrote while another write held the turn")
	}
	<-tr.wsem
	took := fill(t, tr.w.(*os.File))
	if tr.tryWrite([]byte(`{"a":3}`)) {
		t.Fatal("tryWrite wrote to a full pipe")
	}
	r := bufio.NewReader(out)
	if l, _ := r.ReadString('\n'); l != "{\"a\":1}\n" {
		t.Fatalf("first line %q", l)
	}
	rest := make([]byte, took)
	if _, err := io.ReadFull(r, rest); err != nil {
		t.Fatal(err)
	}
	if strings.Trim(string(rest), "\n") != "" {
		t.Fatalf("a declined tryWrite wrote something: %q", strings.Trim(string(rest), "\n"))
	}
	tr.Close()
	if tr.tryWrite([]byte(`{}`)) {
		t.Fatal("tryWrite wrote after Close")
	}

	// Not a pipe the runtime polls: never tried.
	_, pw := io.Pipe()
	defer pw.Close()
	other := NewStdioTransport(strings.NewReader(""), pw, StdioOptions{})
	defer other.Close()
	if other.tryWrite([]byte(`{}`)) {
		t.Fatal("tryWrite wrote to an io.Pipe")
	}
}

// A cancelled Call's notification is on the wire when Call returns (it is
// written on the caller's goroutine); when the pipe is full it is queued
// instead, Call still returns at once, and the notification follows once
// the peer reads.
func TestCancelWrittenBeforeCallReturns(t *testing.T) {
	tr, out, _ := osPipes(t)
	c := NewConn(tr, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	c.Start()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.Close(ctx)
	}()
	r := bufio.NewReader(out)

	ctx, cancel := context.WithCancel(context.Background())
	errc := callAsync(c, ctx, "tools/call", nil)
	if l, err := r.ReadString('\n'); err != nil || !strings.Contains(l, `"method":"tools/call"`) {
		t.Fatalf("request %q, %v", l, err)
	}
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("Call returned %v", err)
	}
	if r.Buffered() != 0 {
		t.Fatal("read ahead of the request")
	}
	if l := readNow(t, out); l != `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"context canceled"}}`+"\n" {
		t.Fatalf("in the pipe when Call returned: %q", l)
	}

	ctx, cancel = context.WithCancel(context.Background())
	errc = callAsync(c, ctx, "tools/call", nil)
	if l, err := r.ReadString('\n'); err != nil || !strings.Contains(l, `"id":2`) {
		t.Fatalf("request %q, %v", l, err)
	}
	took := fill(t, tr.w.(*os.File))
	cancel()
	within(t, chanOf(errc), "Call to return with the pipe full")
	rest := make([]byte, took)
	if _, err := io.ReadFull(r, rest); err != nil {
		t.Fatal(err)
	}
	if l, err := r.ReadString('\n'); err != nil || !strings.Contains(l, `"params":{"requestId":2,`) {
		t.Fatalf("after the filler: %q, %v", l, err)
	}
}
