//go:build unix

package jsonrpc2

import (
	"os"
	"syscall"
)

// rawPipe returns w's raw descriptor if w is a pipe the runtime poller
// manages (non-blocking), for writeNonBlocking; nil otherwise.
func rawPipe(w any) syscall.RawConn {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// writeNonBlocking makes one write(2) of b to the non-blocking pipe rc and
// returns how many bytes it took: 0 when the pipe is full or the write
// failed (the caller's ordinary write will then report why).
func writeNonBlocking(rc syscall.RawConn, b []byte) int {
	var n int
	var werr error
	err := rc.Write(func(fd uintptr) bool {
		n, werr = syscall.Write(int(fd), b)
		return true // never wait for the pipe to drain
	})
	if err != nil || werr != nil || n < 0 {
		return 0
	}
	return n
}
