package engine

import (
	"context"
	"fmt"
	"strings"
)

// textChecker is a store that can hash its stored texts again
// (sqlite.Store: textcheck.go). A store without it gets a skipped line.
type textChecker interface {
	// CheckTexts calls fn with each document whose stored text no longer
	// matches the hash it was stored under, and returns how many texts it
	// read and their bytes.
	CheckTexts(ctx context.Context, fn func(corpus, path, why string)) (texts int, bytes int64, err error)
	// ForgetText points a document at no text, for the next sync to
	// index it again from its file; GC collects the text.
	ForgetText(ctx context.Context, corpus, path string) error
}

// maxTextPaths is how many damaged documents the text line names.
const maxTextPaths = 10

// checkTexts hashes every stored text again: bytes garbled inside a row
// (a bad disk, a bit flip) leave the file's structure sound, so
// integrity_check passes, and FTS5 cannot check what its contentless
// table does not hold; search then shows and embeds the wrong text, and a
// sync never notices, since the file's hash still matches the document's.
// With repair the damaged documents forget their text (collected with its
// chunks, full-text rows and vectors) and resync is set: Doctor then runs
// a sync, which reads their files again. It reads every stored text once:
// 1.6 to 1.9 s of CPU at 1M chunks (457 MB), beside 14 to 16 s for the
// integrity check, so it runs on every doctor.
func (e *Engine) checkTexts(ctx context.Context, repair bool) (c DoctorCheck, resync bool, err error) {
	c = DoctorCheck{Name: "text", Status: CheckOK}
	tc, ok := e.store.(textChecker)
	if !ok {
		c.Status, c.Detail = CheckSkipped, "this store does not hash its stored texts again"
		return c, false, nil
	}
	var bad []damagedText
	texts, size, err := tc.CheckTexts(ctx, func(corpus, path, why string) { bad = append(bad, damagedText{corpus, path, why}) })
	if err != nil {
		return c, false, err
	}
	if len(bad) == 0 {
		c.Detail = fmt.Sprintf("%d stored texts (%s) match their hashes", texts, byteSize(size))
		if texts == 1 {
			c.Detail = fmt.Sprintf("1 stored text (%s) matches its hash", byteSize(size))
		}
		return c, false, nil
	}
	c.Status, c.Detail = CheckProblem, textDetail(bad)
	c.Fix = "drop their stored text and index them again from their files (a sync)"
	if !repair {
		return c, false, nil
	}
	for _, d := range bad {
		if err := tc.ForgetText(ctx, d.corpus, d.path); err != nil {
			return c, false, err
		}
	}
	if _, err := e.store.GC(ctx); err != nil {
		return c, false, err
	}
	c.Status = CheckRepaired
	c.Fix = "dropped their stored text; the sync below indexes them again from their files"
	return c, true, nil
}

// damagedText is a document CheckTexts named, and why.
type damagedText struct{ corpus, path, why string }

// textDetail names the damaged documents by path, grouped by why in the
// order met, at most maxTextPaths of them: "2 documents (stored text no
// longer matches its hash): cairn://notes/a.md, cairn://notes/b.md".
func textDetail(bad []damagedText) string {
	var whys []string
	byWhy := map[string][]string{}
	for _, d := range bad {
		if _, ok := byWhy[d.why]; !ok {
			whys = append(whys, d.why)
		}
		byWhy[d.why] = append(byWhy[d.why], cairnPath(d.corpus, d.path))
	}
	var parts []string
	named := 0
	for _, why := range whys {
		paths := byWhy[why]
		take := min(len(paths), max(0, maxTextPaths-named))
		named += take
		list := strings.Join(paths[:take], ", ")
		switch {
		case take == 0:
			list = "not named here"
		case take < len(paths):
			list += fmt.Sprintf(" and %d more", len(paths)-take)
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s): %s", len(paths), plural(len(paths), "document", "documents"), why, list))
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// byteSize is n in B, KB, MB or GB (powers of 1000), for doctor's lines.
func byteSize(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// addTextCheck runs checkTexts and adds its line; a repair that dropped
// texts sets rep.resync, for Doctor's sync.
func (e *Engine) addTextCheck(ctx context.Context, rep *DoctorReport, repair bool) error {
	c, resync, err := e.checkTexts(ctx, repair)
	if err != nil {
		return err
	}
	rep.add(c)
	rep.resync = rep.resync || resync
	return nil
}
