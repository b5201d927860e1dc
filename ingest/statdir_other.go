//go:build !unix

package ingest

// statGroup stats files of one directory by their paths.
func statGroup(dir string, ps []pendingFile) {
	statByPath(dir, ps)
}

// statRun stats a run of files of d by their paths.
func statRun(d *dirRef, ps []pendingFile) {
	statByPath(d.path, ps)
}

func closeDir(int) {}
