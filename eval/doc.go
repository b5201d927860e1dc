// Package eval measures retrieval on public long-term memory benchmarks
// through the same library path users get: it imports a dataset's
// conversations into a fresh store as sessions, asks each question with
// engine.Search scoped to its conversation, expands hits into the turns
// their line ranges cover, and scores those turns against the annotated
// evidence.
//
// Metrics (per question, averaged, in percent):
//
//   - turn_recall@k: the share of evidence turns among the first k turns
//     retrieved. Hits are expanded into their turns in rank order, and
//     counting stops after k distinct turns, so a larger chunk cannot buy
//     recall.
//   - session_recall_any@k: 1 when any evidence session is among the first
//     k distinct sessions retrieved.
//   - ndcg@10: binary-relevance NDCG over the first 10 turns.
//   - mrr: the reciprocal rank of the first evidence turn (0 when none).
//
// Questions whose evidence resolves to no known turn are skipped and
// counted.
//
// Memory mode (LocomoMemory, LongMemEvalMemory; memory.go): each
// conversation is consolidated with a model into memories in a store of
// its own, questions are asked of the memories corpus, and a memory hit
// stands for the turns its provenance names; with a fast model and a
// judge, answers come from gathered memories and are graded. Its scores
// need a user's consolidation model.
package eval
