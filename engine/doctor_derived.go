package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/vector"
)

func (e *Engine) searchIdent() func(string) string { return search.IdentText }

// checkDerived checks (and with repair rebuilds) what the index derives
// from its chunks and the files Cairn leaves: the full-text index, stray
// rows, vectors.bin, temporary files; and reads the durable store.
func (e *Engine) checkDerived(ctx context.Context, rep *DoctorReport, repair bool) error {
	ftsBad := false
	c := DoctorCheck{Name: "fulltext", Status: CheckOK, Detail: "FTS5 integrity-check passed"}
	if err := e.store.CheckFTS(ctx); err != nil {
		ftsBad = true
		c.Status, c.Detail, c.Fix = CheckProblem, err.Error(), "rebuild the full-text index from the stored chunks"
	}
	strays, err := e.store.FindStrays(ctx)
	if err != nil {
		return err
	}
	s := DoctorCheck{Name: "strays", Status: CheckOK, Detail: "no orphaned or stray rows"}
	if strays.Total() > 0 {
		s.Status = CheckProblem
		s.Detail = fmt.Sprintf("%d orphaned content rows, %d full-text rows and %d vectors without a chunk, %d chunks missing from the full-text index",
			strays.Content, strays.FTSRows, strays.Vectors, strays.Unindexed)
		s.Fix = "collect orphaned content and delete stray vectors; rebuild the full-text index when it has stray or missing rows"
		ftsBad = ftsBad || strays.FTSRows > 0 || strays.Unindexed > 0
	}
	if repair && strays.Total() > 0 {
		if _, err := e.store.GC(ctx); err != nil {
			return err
		}
		if _, err := e.store.DeleteStrayVectors(ctx); err != nil {
			return err
		}
		s.Status = CheckRepaired
	}
	if repair && ftsBad {
		if err := e.store.RebuildFTS(ctx); err != nil {
			return err
		}
		if c.Status == CheckProblem {
			c.Status = CheckRepaired
		}
	}
	rep.add(c)
	rep.add(s)
	if err := e.addTextCheck(ctx, rep, repair); err != nil { // doctor_text.go
		return err
	}
	v, err := e.checkVectorFile(ctx, repair)
	if err != nil {
		return err
	}
	rep.add(v)
	rep.add(e.checkTemps(repair))
	rep.add(e.checkDurable(ctx))
	return nil
}

// checkVectorFile verifies vectors.bin's checksum; a damaged file is
// removed by repair and, with an embedder configured, written again from
// the vectors in SQLite.
func (e *Engine) checkVectorFile(ctx context.Context, repair bool) (DoctorCheck, error) {
	c := DoctorCheck{Name: "vectors", Status: CheckOK}
	path := filepath.Join(e.opts.Dir, VectorFile)
	stamp, err := vector.FileStamp(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.Detail = VectorFile + " absent (written by the first sync or search with an embedder)"
		return c, nil
	case err == nil:
		err = vector.Verify(path, stamp) // the body in full, whatever a one-shot load trusts
	}
	if err == nil {
		c.Detail = VectorFile + " passed its checksum"
		if version, verr := e.store.VectorsVersion(ctx); verr == nil && version != stamp.Version {
			c.Detail += "; it is older than the vectors in " + DBFile + " and is rebuilt by the next search"
		}
		return c, nil
	}
	if !errors.Is(err, vector.ErrStale) {
		return c, err
	}
	c.Status, c.Detail = CheckProblem, err.Error()
	c.Fix = "remove " + VectorFile + " and write it again from the vectors in " + DBFile
	if !repair {
		return c, nil
	}
	if err := os.Remove(path); err != nil {
		return c, fmt.Errorf("remove damaged vector index: %w", err)
	}
	c.Status = CheckRepaired
	if e.opts.Embedder != nil {
		if err := e.loadVectors(ctx); err != nil {
			return c, err
		}
	}
	return c, nil
}

// checkTemps counts (and with repair removes) stale temporary files.
func (e *Engine) checkTemps(repair bool) DoctorCheck {
	c := DoctorCheck{Name: "temp_files", Status: CheckOK, Detail: "no stale temporary files"}
	now := time.Now()
	n, _ := e.countStaleTemps(now)
	if n == 0 {
		return c
	}
	c.Status, c.Detail = CheckProblem, fmt.Sprintf("%d temporary files of interrupted writes, older than %s", n, StaleTempAge)
	c.Fix = "remove them (the next sync does too)"
	if repair {
		if _, err := e.removeStaleTemps(now); err == nil {
			c.Status = CheckRepaired
		}
	}
	return c
}

// checkDurable reads the durable store's integrity; Doctor never changes
// it: memories cost model calls and have no other source.
func (e *Engine) checkDurable(ctx context.Context) DoctorCheck {
	return memoriesCheck(e.store.CheckDurable(ctx))
}

// memoriesCheck is the memories line of a backend's finding about them.
func memoriesCheck(f cairn.Finding) DoctorCheck {
	c := DoctorCheck{Name: "memories", Status: CheckOK, Detail: f.Detail}
	if f.Problem {
		c.Status, c.Fix = CheckProblem, f.Fix
	}
	return c
}
