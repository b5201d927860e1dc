//go:build !unix

package engine

import "os"

// tryLock always succeeds where flock(2) does not exist: syncs of one
// data directory from two processes are not kept apart there (within one
// Engine they still are, by its mutex).
func tryLock(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) error { return nil }
