package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// cairn tasks list|update: the maintenance inbox of C21 to C23. Cairn
// never edits a source for a task: you fix the file, then close the task.

func tasksList(ctx context.Context, e *env, args []string) error {
	fs := e.flags("tasks list")
	status := fs.String("status", cairn.TaskPending, "tasks of this status: "+strings.Join(engine.TaskStatuses, ", "))
	limit := fs.Int("limit", engine.DefaultTaskList, fmt.Sprintf("tasks to list, 1 to %d", engine.MaxTaskList))
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("tasks list", pos); err != nil {
		return err
	}
	if !slices.Contains(engine.TaskStatuses, *status) {
		return usagef("--status %q: allowed %s", *status, strings.Join(engine.TaskStatuses, ", "))
	}
	if *limit < 1 || *limit > engine.MaxTaskList {
		return usagef("--limit %d: allowed 1 to %d", *limit, engine.MaxTaskList)
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	ts, err := eng.ListTasks(ctx, *status, *limit)
	if errors.Is(err, cairn.ErrInvalid) {
		return usagef("tasks list: %v", err)
	}
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]any{"tasks": ts})
	}
	if len(ts) == 0 {
		fmt.Fprintf(e.stdout, "no %s tasks\n", *status)
		return nil
	}
	for _, t := range ts {
		fmt.Fprintf(e.stdout, "%s  %-20s %s  cairn://%s/%s\n", t.ID, t.Type, t.Reason, t.Corpus, t.Path)
		if in, _ := t.Detail["instruction"].(string); in != "" {
			fmt.Fprintf(e.stdout, "  %s\n", in)
		}
	}
	return nil
}

func tasksUpdate(ctx context.Context, e *env, args []string) error {
	fs := e.flags("tasks update")
	action := fs.String("action", "", "resolve, defer or irrelevant (required)")
	note := fs.String("note", "", "what was decided or done, 1 to 500 characters (required to resolve a quality_review)")
	eventTime := fs.String("event-time", "", "resolving an ambiguous_event_time task: when it happened, ISO 8601 with an offset")
	basis := fs.String("basis", cairn.BasisAgentVerified, "what the event time rests on: "+strings.Join(engine.AnnotationBases, ", "))
	evidence := fs.String("evidence", "", "the evidence for the event time, 1 to 500 characters")
	scope := fs.String("scope", "chunk", "the event time is of the chunk or the whole document")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("tasks update needs one task ID (see cairn tasks list)")
	}
	switch {
	case !slices.Contains(engine.TaskActions, *action):
		return usagef("--action %q: allowed %s", *action, strings.Join(engine.TaskActions, ", "))
	case *scope != "chunk" && *scope != "document":
		return usagef("--scope %q: allowed chunk, document", *scope)
	case !slices.Contains(engine.AnnotationBases, *basis):
		return usagef("--basis %q: allowed %s", *basis, strings.Join(engine.AnnotationBases, ", "))
	}
	req := engine.TaskUpdateRequest{TaskID: pos[0], Action: *action, Note: *note}
	if *eventTime != "" || *evidence != "" {
		req.Annotation = &engine.AnnotationRequest{Scope: *scope, EventTime: *eventTime, Basis: *basis, Evidence: *evidence}
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	t, err := eng.UpdateTask(ctx, req)
	switch {
	case errors.Is(err, cairn.ErrInvalid):
		return usagef("tasks update: %v", err)
	case errors.Is(err, cairn.ErrNotFound):
		return fmt.Errorf("update task %s: %w (see cairn tasks list)", pos[0], cairn.ErrNotFound)
	case err != nil:
		return err
	}
	if e.json {
		return e.printJSON(t)
	}
	fmt.Fprintf(e.stdout, "task %s %s\n", t.ID, t.Status)
	return nil
}
