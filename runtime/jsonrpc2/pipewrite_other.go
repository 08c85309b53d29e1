//go:build !unix

package jsonrpc2

import "syscall"

// rawPipe is nil where writeNonBlocking is not implemented: tryWrite then
// always declines.
func rawPipe(any) syscall.RawConn { return nil }

func writeNonBlocking(syscall.RawConn, []byte) int { return 0 }
