//go:build !unix

package ingest

// statGroup stats files of one directory by their paths.
func statGroup(dir string, ps []pendingFile) {
	for i := range ps {
		ps[i].info, ps[i].err = ps[i].e.Info()
	}
}
