//go:build !unix

package ingest

// statGroup stats files of one directory by their paths.
func statGroup(dir string, ps []pendingFile) {
	statByPath(dir, ps)
}
