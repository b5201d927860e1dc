//go:build !unix

package ingest

// Elsewhere a FIFO cannot sit in a folder as a file; the descriptor check
// still refuses anything that is not a regular file.
const (
	transcriptOpenFlags = 0
	siblingOpenFlags    = 0
)
