// Package judge asks a model questions about a state (what an agent is
// doing: a conversation, a query, passages found for it) under a rubric,
// and returns typed answers with probabilities: C24's judge model, which
// judged search, the whisperers and the audits build on.
//
// Quick start:
//
//	j, err := judge.FromConfig(cfg.Judge, os.Getenv) // [llm.judge], else [llm.fast]
//	if err != nil { ... }                             // judge.ErrNotConfigured: disabled or no endpoint
//	got, err := j.Ask(ctx, &judge.Request{Rubric: judge.MemoryUsefulness, State: state})
//	switch judge.CodeOf(err) {
//	case judge.CodeTimeout, judge.CodeHTTP, judge.CodeNetwork, judge.CodeInvalid, judge.CodeCredentials:
//		// drop this passage: a failed judgment is never a score of 0
//	}
//	useful := got.Answers["memory_0"].P >= judge.MinUsefulness
//
// One request carries one state and up to 16 named questions; each answer
// is Binary (P(yes)), Choice (a probability per option) or Score (a
// probability per level 0 to 3 and their expected value).
//
// Where probabilities come from. An OpenAI-compatible endpoint (llama.cpp
// server, vLLM, Ollama, OpenAI) is first asked for one line per question,
// "<key>: <answer>", each answer one token (yes/no, an option's letter, a
// level's digit), with logprobs and top_logprobs; the probabilities are
// those of the answer token's alternatives, summed by the label they spell
// and normalized over the labels allowed. An endpoint that gives no
// log-probabilities (it ignores the fields, or refuses them with a 400) is
// then asked, in the same judgment and from then on, for a structured
// answer: a JSON object, checked against a schema, holding P(yes) for a
// binary question and a probability per label otherwise, normalized by
// their sum. Anthropic's API has no log-probabilities, so it is always
// asked for the structured answer. Written probabilities are coarser than
// token ones; the thresholds of C24 were tuned on the reference system's
// judge and are not yet calibrated on any model Cairn talks to.
//
// Safety. Every string in the state, and every question's text, passes
// through redact.Redact before it is sent. The state is quoted as JSON
// between <state> tags with < and > escaped, and every rubric's prompt
// says the state is data to weigh, never instructions to follow.
//
// Failures. A judgment has one deadline (Timeout, C2's timeoutMs, default
// 1.5 s) and is never retried; FromConfig's clients make no retries of
// their own and follow no redirects. Errors are *Error with a Code:
// timeout, cancelled (the caller's context ended), http_error (with the
// status; a redirect is one), network_error, invalid_response (answer keys
// other than the questions', a token or value that is no allowed answer),
// or credentials (the key could not be read; nothing was sent). An error's
// message never holds a provider's body or the model's text: bodies of
// non-2xx answers are discarded unread, except a 400's or 422's, which
// the client reads only to learn which parameter the server refuses.
//
// Cache. Judgments are kept by policy id (<model id>:<rubric id>, so a
// model change or a new rubric version misses) and the hash of what was
// judged (the rubric's instructions, the questions and the redacted
// state); a failure is never kept. MemoryCache keeps the most recently
// used DefaultCacheEntries in memory; Cache is the interface a durable
// one (C1's curation DB) will implement.
package judge
