// Package whisper brings memory to an agent before it answers: the
// prompt-time whisper API (C28) that runs the enabled whisperers of a
// turn concurrently and puts their sections in one <cairn_memory> block,
// the Memory Whisperer (C29), which finds what past work says about the
// request and injects at most two verbatim excerpts a judge found useful,
// and judged search (C11 enhanced), which both the Memory Whisperer and
// memory_search in judged mode run.
//
// Quick start (cmd/cairn/whisper.go does this from config.toml):
//
//	j, _ := judge.FromConfig(cfg.Judge, os.Getenv)                  // [llm.judge], else [llm.fast]
//	qm, _ := llm.New(cfg.LLM[cairn.PurposeFast], cairn.PurposeFast, os.Getenv)
//	stats := &whisper.Stats{}
//	mw := whisper.NewMemoryWhisperer(whisper.MemoryOptions{
//		Config: cfg.MemoryWhisperer, Retriever: whisper.EngineRetriever{Engine: eng},
//		Judge: j, Credential: func() string { return judge.Credential(cfg.Judge, os.Getenv) },
//		QueryModel: qm, Stats: stats, Logger: logger})
//	svc := whisper.NewService(stats, logger, mw /*, the skill whisperer */)
//	defer svc.Close()
//	res, err := svc.Whisper(ctx, &whisper.Turn{AgentID: "main", SessionID: "s1", RunID: "r1",
//		Trigger: whisper.TriggerUser, Prompt: "what busy_timeout do the writers use?"})
//	// res.AppendContext: "" or "<cairn_memory>\n<memory>\n[...]\n</memory>\n</cairn_memory>"
//
// A whisperer is anything that implements Whisperer; the Skill Whisperer
// (C30) lives in package skills and plugs into the same Service.
//
// Deadlines. The Memory Whisperer has one total deadline (timeoutMs,
// default 3 s) over every stage; the judge's own per-request timeout
// bounds each judgment within it. A section finished after the deadline,
// or after the Service aborted its run (a newer run of the session,
// session end, shutdown), is dropped, and passages are put in cooldown
// only when they were shown, so a late answer never reaches a later turn.
//
// No text in telemetry. Stats and the structured logs hold ids, outcome
// names, codes, timings and counts: never a prompt, query, excerpt, key or
// a provider's body.
package whisper
