package sqlite

import (
	"context"
	"fmt"
)

// statementContext is the context a write transaction's statements run
// with: ctx's values without its cancellation, and done, to defer with the
// transaction's error.
//
// The driver (mattn/go-sqlite3) runs a statement whose context can be
// cancelled on a goroutine of its own, to interrupt it when the context
// ends: one goroutine, two channel operations and usually a thread wake-up
// for every row written. A batch of a first index writes two statements a
// chunk (its row and its full-text row): on the docs corpus of issue 19
// (31,631 chunks) that hand-off cost the writer more CPU than the writing
// (bench/RESULTS.md, session IX). A statement without a Done channel runs
// on the calling goroutine.
//
// Cancellation still stops the batch: the transaction was begun with ctx,
// so database/sql rolls it back when ctx ends, and the next statement
// fails with sql.ErrTxDone; the statement running then (one row) finishes
// first instead of being interrupted. done reports such a failure as ctx's
// cause, so callers that check for context.Canceled still see it.
func statementContext(ctx context.Context) (sctx context.Context, done func(*error)) {
	return context.WithoutCancel(ctx), func(err *error) {
		if *err != nil && ctx.Err() != nil {
			*err = fmt.Errorf("write batch: %w: %v", context.Cause(ctx), *err)
		}
	}
}
