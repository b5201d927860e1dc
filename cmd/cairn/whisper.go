package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/llm"
	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/cairnmemory/cairn/whisper"
)

// maxWhisperInput bounds what cairn whisper reads from stdin, as the
// server bounds a request body.
const maxWhisperInput = mcpserver.DefaultMaxBodyBytes

// whisperStdin is where cairn whisper reads its turn (tests replace it).
var whisperStdin io.Reader = os.Stdin

// cmdWhisper answers one C28 turn read as JSON on stdin, for hooks that
// start a process: with --server it asks a running cairn serve (whose
// whisperers keep cooldowns and run ids across turns), else it runs the
// configured whisperers in this process for this one turn (cooldowns and
// the run-id cache then last the turn only). It prints {} or
// {"appendContext": ...}; --observe reads an observation instead and
// prints {"status":"ok"}.
func cmdWhisper(ctx context.Context, e *env, args []string) error {
	fs := e.flags("whisper")
	server := fs.String("server", "", "URL of a running cairn serve (default: whisper in this process)")
	observe := fs.Bool("observe", false, "stdin is a completed tool call for /v1/whisper/observe, not a turn")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("whisper", pos); err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(whisperStdin, maxWhisperInput+1))
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	if len(data) > maxWhisperInput {
		return usagef("whisper: stdin is over %d bytes", maxWhisperInput)
	}
	if *observe {
		return e.whisperObserve(ctx, data, *server)
	}
	t, err := mcpserver.DecodeTurn(data)
	if err != nil {
		return usagef("whisper: stdin: %v", err)
	}
	agentSet := false
	fs.Visit(func(f *flag.Flag) { agentSet = agentSet || f.Name == "agent" })
	switch {
	case t.AgentID == "":
		if !agentSet {
			fmt.Fprintf(e.stderr, "cairn whisper: no agentId: whispering for agent %q (give agentId or --agent)\n", e.agent)
		}
		t.AgentID = e.agent
	case agentSet && t.AgentID != e.agent:
		return usagef("whisper: stdin: agentId %q differs from --agent %q: give one", t.AgentID, e.agent)
	}
	if _, err := config.AgentDir("", t.AgentID); err != nil {
		return usagef("whisper: stdin: agentId: %v", err)
	}
	if reason := whisper.NoRunReason(t); reason != "" {
		// Not an error (C28: such a turn does not run), but say why.
		fmt.Fprintf(e.stderr, "cairn whisper: nothing whispered: %s\n", reason)
		if t.Trigger != whisper.TriggerSessionEnd || *server == "" {
			return e.printJSON(whisper.Result{})
		}
	}
	var res whisper.Result
	if *server != "" {
		err = postJSON(ctx, strings.TrimRight(*server, "/")+"/v1/whisper", t, &res)
	} else {
		res, err = e.whisperHere(ctx, t)
	}
	if err != nil {
		return err
	}
	return e.printJSON(res)
}

func (e *env) whisperObserve(ctx context.Context, data []byte, server string) error {
	var o whisper.Observation
	if err := json.Unmarshal(data, &o); err != nil {
		return usagef("whisper --observe: stdin is not {agentId, sessionId, tool, args, ok}: %v", err)
	}
	if o.AgentID == "" {
		o.AgentID = e.agent
	}
	if server != "" {
		if err := postJSON(ctx, strings.TrimRight(server, "/")+"/v1/whisper/observe", o, nil); err != nil {
			return err
		}
	}
	// In-process whisperers live for one turn: nothing to tell them.
	return e.printJSON(mcpserver.ObserveOut{Status: "ok"})
}

// whisperHere runs the configured whisperers over the agent's index for
// one turn.
func (e *env) whisperHere(ctx context.Context, t *whisper.Turn) (whisper.Result, error) {
	e.agent = t.AgentID // the turn's agent, as the server resolves it
	cfg, err := e.loadConfig()
	if err != nil {
		return whisper.Result{}, err
	}
	var eng *engine.Engine
	if cfg.MemoryWhisperer.Enabled {
		if eng, cfg, err = e.open(ctx); err != nil {
			return whisper.Result{}, err
		}
		defer eng.Close(context.Background())
	}
	svc, closeAll, err := e.whisperService(cfg, eng, t.AgentID, false)
	if err != nil {
		return whisper.Result{}, err
	}
	defer closeAll()
	return svc.Whisper(ctx, t)
}

// whisperService is the Service over the configured whisperers: the
// Memory Whisperer over eng (when enabled and eng is set) and the Skill
// Whisperer (skillwhisper.go; watch: a long-lived server's). close stops
// them.
func (e *env) whisperService(cfg *config.Config, eng *engine.Engine, agent string, watch bool) (*whisper.Service, func(), error) {
	stats := &whisper.Stats{}
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil))
	var ws []whisper.Whisperer
	if mw := e.memoryWhisperer(cfg, eng, agent, stats, logger); mw != nil {
		ws = append(ws, mw)
	}
	sw, closeSkills, err := e.skillWhisperer(cfg, watch)
	if err != nil {
		return nil, nil, err
	}
	if sw != nil {
		ws = append(ws, sw)
	}
	svc := whisper.NewService(stats, logger, ws...)
	return svc, func() { svc.Close(); closeSkills() }, nil
}

// memoryWhisperer builds the Memory Whisperer of [memoryWhisperer], nil
// when it is off or there is no index. The judge is [llm.judge] (else
// [llm.fast]); without one every turn counts missing_key or
// judge_disabled. The query model is [memoryWhisperer.queryModel], else
// [llm.fast].
func (e *env) memoryWhisperer(cfg *config.Config, eng *engine.Engine, agent string, stats *whisper.Stats, logger *slog.Logger) *whisper.MemoryWhisperer {
	wc := cfg.MemoryWhisperer.Filled()
	if !wc.Enabled || eng == nil {
		return nil
	}
	asker, credential := e.judgeOf(cfg, agent)
	var qm cairn.LLM
	lc, ok := cfg.LLM[cairn.PurposeFast]
	if wc.QueryModel != nil {
		lc, ok = wc.QueryModel.LLM(), true
	}
	if ok {
		m, err := llm.New(lc, cairn.PurposeFast, os.Getenv)
		if err != nil {
			fmt.Fprintf(e.stderr, "cairn: agent %s: memory whisperer query model: %v; it answers nothing\n", agent, err)
		}
		qm = m
	}
	return whisper.NewMemoryWhisperer(whisper.MemoryOptions{Config: wc, Retriever: whisper.EngineRetriever{Engine: eng},
		Judge: asker, Credential: credential, QueryModel: qm, Logger: logger, Stats: stats})
}

// judgeOf is the judge of a configuration (nil when none is configured)
// and its key's state, read on every call.
func (e *env) judgeOf(cfg *config.Config, agent string) (whisper.Asker, func() string) {
	jc := cfg.Judge
	credential := func() string { return judge.Credential(jc, os.Getenv) }
	j, err := judge.FromConfig(jc, os.Getenv)
	switch {
	case errors.Is(err, judge.ErrNotConfigured):
		return nil, credential
	case err != nil:
		fmt.Fprintf(e.stderr, "cairn: agent %s: judge: %v\n", agent, err)
		return nil, credential
	}
	return j, credential
}

// enhanced is an agent's enhanced mode for a server (C11 judged search,
// the whisper API, C16): close stops its whisperers.
func (e *env) enhanced(cfg *config.Config, eng *engine.Engine, agent string) *mcpserver.Enhanced {
	asker, credential := e.judgeOf(cfg, agent)
	out := &mcpserver.Enhanced{Judged: cfg.MemorySearch.Judged(), Judge: asker, Credential: credential,
		Memory: cfg.MemoryWhisperer.Enabled, Skill: cfg.SkillWhisperer.Enabled,
		ComplementaryHints: cfg.MemoryWhisperer.ComplementaryHints}
	svc, closeAll, err := e.whisperService(cfg, eng, agent, true)
	if err != nil {
		fmt.Fprintf(e.stderr, "cairn: agent %s: whisperers: %v; /v1/whisper answers nothing\n", agent, err)
		return out
	}
	out.Whisper, out.Close = svc, closeAll
	return out
}
