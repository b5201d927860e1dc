//go:build unix

package ingest

import "syscall"

// Flags added when opening transcripts and their siblings: never block on a
// FIFO; siblings also refuse a final symbolic link.
const (
	transcriptOpenFlags = syscall.O_NONBLOCK
	siblingOpenFlags    = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
)
