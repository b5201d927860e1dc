package judge

// Rubric is what a judge is told to weigh: its id (a version is part of
// it, and of every policy id), the instructions, and the questions a
// request asks when it names none. The texts are Cairn's own wording of
// C24's rubrics; a change to a rubric's meaning takes a new id, so cached
// judgments of the old one are never read as the new one's.
type Rubric struct {
	ID           string
	Instructions string
	Questions    []Question
}

// Decision thresholds of C24, for callers. They were tuned on the
// reference system's judge; how well they fit other models is not
// measured yet.
const (
	MinUsefulness = 0.7 // memory-usefulness-v2: a passage is shown at p ≥ this
	MinRecall     = 0.7 // historical-recall-v2: search runs at p ≥ this
	MinRedundancy = 0.9 // redundancy: the later passage is dropped at p ≥ this
	MinSkillUse   = 0.7 // skill-useful: the best skill is named at p ≥ this
)

// MemoryUsefulness (C11, C29): is a remembered passage worth showing for
// what the agent is asked now? State: {conversation: {history,
// currentRequest}, asOf, candidates: [{excerpt, corpus, sourcePath,
// dates}]}; memory_<i> asks about candidates[i].
var MemoryUsefulness = &Rubric{
	ID: "memory-usefulness-v2",
	Instructions: `The state holds a conversation (earlier messages in history, and the request the assistant must answer now in currentRequest), today's date (asOf), and candidates: excerpts from the agent's memory, each with the corpus and file it came from and the dates of its messages. Question memory_<i> is about candidates[i].

Say yes only if a careful assistant, answering the current request, would put a concrete fact from the excerpt to use: a name, value, decision, step, date, preference or observation that bears on what is asked.
- A fact the conversation already states adds nothing: say no if that is all the excerpt offers.
- An excerpt that answers part of the request counts.
- Sharing a name, a topic or words with the request is not enough without a fact that helps.
- Old facts can still help; weigh the dates against asOf only when the request is about what is current.`,
	Questions: []Question{{Key: "memory_0", Kind: Binary,
		Text: "Would a careful assistant use a concrete fact from the excerpt of candidates[0] to answer the current request?"}},
}

// HistoricalRecall (C29): would searching past work help the latest
// request at all? State: {history, currentRequest}.
var HistoricalRecall = &Rubric{
	ID: "historical-recall-v2",
	Instructions: `The state holds a conversation between a user and an AI assistant: earlier messages in history and the latest request in currentRequest. The assistant can search a memory of its past work with this user (earlier sessions, notes, decisions), by words and meaning but not by date.

Say yes only if something remembered from past work, beyond what the conversation already holds, would materially improve the answer to the latest request. Say no when the request:
- turns on a date or a window of time (what happened last Tuesday, this week's changes), since the search cannot filter by date; a date mentioned in passing does not count;
- needs only general knowledge, fresh research, inspecting the system or files at hand, arithmetic, reformatting, or a plain acknowledgment.`,
	Questions: []Question{{Key: "recall_needed", Kind: Binary,
		Text: "Would memory of past work, beyond this conversation, materially help with the latest request?"}},
}

// Redundancy (C29): does an earlier passage already say what a later one
// says? State: {currentRequest, pairs: [{earlier, later}]}; pair_<i> asks
// about pairs[i].
var Redundancy = &Rubric{
	ID: "redundancy",
	Instructions: `The state holds the request an assistant is answering (currentRequest) and pairs of excerpts from its memory, each an earlier (already chosen) and a later one. Question pair_<i> is about pairs[i].

Say yes if the earlier excerpt already conveys every fact of the later one that could help with the request, so showing the later one too would add nothing. Say no if the later one holds even one useful fact the earlier one lacks. Wording does not matter, only the facts.`,
	Questions: []Question{{Key: "pair_0", Kind: Binary,
		Text: "Does the earlier excerpt of pairs[0] already convey every useful fact of its later excerpt?"}},
}

// SkillUseful (C30): would a skill's workflow help with the request?
// State: {currentRequest, history, candidate: {name, description}}.
var SkillUseful = &Rubric{
	ID: "skill-useful",
	Instructions: `The state holds the request an assistant is working on (currentRequest), the messages before it (history), and one candidate skill: a written workflow the assistant could open and follow, given by its name and description.

Say yes only if following this skill's workflow would materially help carry out the request: the request calls for the procedure the skill describes. Being on the same topic, or naming the same tool, is not enough.`,
	Questions: []Question{{Key: "useful", Kind: Binary,
		Text: "Would following the candidate skill's workflow materially help with the current request?"}},
}

// QualityIsolated (C25): is an indexed chunk ingestion debris, and does it
// carry information? State: {chunks: [{text, sourceKind}]}; noise_<i>
// and evidence_<i> ask about chunks[i].
var QualityIsolated = &Rubric{
	ID: "quality-v3-isolated",
	Instructions: `The state holds chunks of text from a search index, each with the kind of source it came from (files or sessions, that is agent transcripts). Each chunk is judged on its own. Questions noise_<i> and evidence_<i> are about chunks[i].

noise: say yes if the chunk is mostly transport metadata, serialization scaffolding (JSON envelopes, escaped message wrappers), boilerplate, or debris left by text extraction. Form alone is not noise: code, configuration, logs and terse facts are content.
evidence: say yes if the chunk carries concrete information about an entity, event, decision, preference, constraint, procedure or observation.`,
	Questions: []Question{
		{Key: "noise_0", Kind: Binary, Text: "Is chunks[0] mostly transport metadata, serialization scaffolding, boilerplate or extraction debris?"},
		{Key: "evidence_0", Kind: Binary, Text: "Does chunks[0] carry concrete information about an entity, event, decision, preference, constraint, procedure or observation?"},
	},
}

// Claim (C27): do cited passages support or contradict a claim? State:
// {claim, evidence: [text]}.
var Claim = &Rubric{
	ID: "claim-v1",
	Instructions: `The state holds a claim and the evidence cited for it: passages quoted from the agent's memory. Judge the claim against the evidence alone, not against what you know or believe.

supports: the evidence states or directly implies the claim.
contradicts: the evidence states or directly implies something incompatible with the claim.
insufficient_evidence: the evidence does neither, or only in part, or is ambiguous.`,
	Questions: []Question{{Key: "relation", Kind: Choice, Options: []string{"supports", "contradicts", "insufficient_evidence"},
		Text: "How does the evidence bear on the claim?"}},
}

// ClusterDefects (C26): what ingestion defect, if any, marks a member of
// a cluster? State: {members: [{text}]}; member_<i> asks about
// members[i].
var ClusterDefects = &Rubric{
	ID: "cluster-defects-v1",
	Instructions: `The state holds members of a cluster of indexed chunks: passages that an index grouped as alike. Question member_<i> is about members[i], and asks which ingestion defect it shows, if any.

wrapper: the text is mostly a wrapper around content (message envelopes, tool-call frames, headers of a transport) rather than the content itself.
encoding: the text is encoded or escaped where it should be plain (JSON-escaped strings, base64, doubled escapes, mojibake).
boilerplate: the text is repeated boilerplate (notices, signatures, templates, navigation) with no content of its own.
none_or_uncertain: none of these, or you cannot tell.`,
	Questions: []Question{{Key: "member_0", Kind: Choice, Options: []string{"wrapper", "encoding", "boilerplate", "none_or_uncertain"},
		Text: "Which ingestion defect does members[0] show?"}},
}

// Rubrics are C24's rubrics, in its order.
var Rubrics = []*Rubric{MemoryUsefulness, HistoricalRecall, Redundancy, SkillUseful, QualityIsolated, Claim, ClusterDefects}
