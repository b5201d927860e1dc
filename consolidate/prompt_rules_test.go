package consolidate

import (
	"strings"
	"testing"
)

// TestPromptRules checks that the system prompts carry every rule of the
// measured rule set (spec consolidation-and-recall.md §3.1), each by a
// phrase of Cairn's own wording. The goldens pin the whole text; this
// table says which rule each passage is there for, so an edit that loses
// one fails by name.
func TestPromptRules(t *testing.T) {
	// Compared with whitespace folded: a rewrap is no change of rule.
	main, apart, obs := oneLine(system(PassMain, true)), oneLine(system(PassMain, false)), oneLine(system(PassObservations, false))
	tests := []struct {
		rule    string
		phrase  string
		prompts []string // where the rule must be stated
	}{
		// Whole window.
		{"one question governs", "will a future agent do its work better because this was kept", []string{main, apart}},
		{"recall over brevity", "none left out to keep the list short", []string{main, apart}},
		{"one per piece, none squeezed", "never two of them folded into one", []string{main, apart}},
		{"zero items only when nothing durable", "An empty list of items is right only when nothing durable", []string{main, apart}},
		{"agent's claim is no verification", "the agent saying that something works: that is not verification", []string{main, apart}},
		{"proposed but not adopted", "an option the agent proposed that was not taken up or carried out", []string{main, apart}},
		{"final state, body says what it replaced", "say in the body what it replaced and why", []string{main, apart}},
		{"relative dates absolute everywhere", "in items and episodes as\n  well as in observations", []string{main, apart}},
		// Episodes.
		{"keep false for confirmations", `for bare confirmations
  ("yes", "ok", "continue"), for questions about status, and for a retry of the same thing`, []string{main, apart}},
		{"kept summary names everything", "naming the project, the system, the files,\n  commands and services involved, the decisions taken and the errors met", []string{main, apart}},
		// Items.
		{"procedure seen working", "only steps the\n  conversation saw working", []string{main, apart}},
		{"snippet verbatim", "copied word for word\n  into the body", []string{main, apart}},
		{"pitfall with cause and fix", "what causes it, and the fix that was seen working", []string{main, apart}},
		{"fact about systems", "(endpoints, versions,\n  locations, limits)", []string{main, apart}},
		{"fact about the person, in passing", "also when it is said in passing while asking for something else", []string{main, apart}},
		{"fact numbers and dates", "(how long, how many, how often,\n  since when)", []string{main, apart}},
		{"preference as a fact, never an order", "written as a fact about them, never as an order", []string{main, apart}},
		{"preference near-verbatim", "what they said (close to their words, in quotes)", []string{main, apart}},
		{"preference applies_when narrow", "Its applies_when reaches no further than what they said", []string{main, apart}},
		{"preference: confirmation counts", "accepted without objection, counts\n  as much as a correction", []string{main, apart}},
		{"reference never a secret", "never\n  the secret itself", []string{main, apart}},
		{"importance 5", "5 critical: data, money, security or a whole system depends\non it", []string{main, apart}},
		{"skip chatter and stale status", "progress chatter, a status that will be stale within days, a one-off task", []string{main, apart}},
		{"skip what the code shows and guesses", "what anyone can learn\n  by reading the code, and anything guessed", []string{main, apart}},
		{"never tool X does not work", `"tool X does not work", or a failure that belongs to one machine or one setup`, []string{main, apart}},
		{"dead end never a procedure", "A dead end is never written up as a procedure", []string{main, apart}},
		{"cues describe the task", "A cue describes the task that would call for the memory, not the memory itself", []string{main, apart}},
		// Observations.
		{"observe everything about the person", "what they bought, made, read, watched, played,\n  won, lost or learned", []string{main, obs}},
		{"what the agent told them", "what the agent recommended, listed or told them that they may ask about again", []string{main, obs}},
		{"work events", "decided, done, built, changed, fixed, deployed or found out, and when", []string{main, obs}},
		{"one per event, in passing, when in doubt", "When unsure, keep it", []string{main, obs}},
		{"the other person counts", "what the other person tells about their own life counts just\n  as much", []string{main, obs}},
		{"no On <date> X said", `never "On <date>, X said that ..."`, []string{main, obs}},
		{"true as told", "What a speaker tells about their own life is true as told", []string{main, obs}},
		{"plan as plan, replacement both", `A plan is written as a plan. A change
  names both sides ("now X, before Y")`, []string{main, obs}},
		{"name what is described", `("the book you recommended", "my home country")`, []string{main, obs}},
		{"known names are names, never facts", "take the name from them, never\n  a fact", []string{main, obs}},
		{"about: the person", `"the person" is the one whose
  requests these are`, []string{main, obs}},
		{"yesterday", `"yesterday" is the day before that day`, []string{main, obs}},
		{"last week", `"last week" is the Monday of the
  week before`, []string{main, obs}},
		{"last weekend", `"last weekend" is the Saturday of the weekend before`, []string{main, obs}},
		{"on Friday", `"on Friday" is the latest
  Friday before that day`, []string{main, obs}},
		{"last month, in June", `"last month" is the month before (YYYY-MM); "in June" is YYYY-06`, []string{main, obs}},
		{"plan's date", "A\n  plan's event_date is the date it is planned for", []string{main, obs}},
		{"spans for what lasts", "(a state, a habit, a job, a relationship, a project, a\n  stay, something done again and again)", []string{main, obs}},
		{"span examples", `"has been playing
  drums again for about a month" said on 2022-03-27 starts 2022-02; "since 2019" starts 2019;
  "worked on it for six months" said in May 2022 starts 2021-11 and ends 2022-05`, []string{main, obs}},
		{"one-time events have no span", "Leave both empty\n  for a one-time event", []string{main, obs}},
		{"observation concepts", "up to 6 specific things it names: people, places, organisations, products, titles,\n  files, services", []string{main, obs}},
		{"observation cues in the asker's words", "in the words the\n  asker would use rather than the observation's own, from the broad to the specific", []string{main, obs}},
		// Provenance and names.
		{"no request number, thrown away", "One without a\n  record number of this window is thrown away", []string{main, apart}},
		{"observations pass: no request number", "One without a\n  record number of this window is thrown away", []string{obs}},
		{"known names pair descriptions with names", "Names known from other conversations pair a description with a name", []string{main, apart, obs}},
	}
	for _, tt := range tests {
		for i, p := range tt.prompts {
			if !strings.Contains(p, oneLine(tt.phrase)) {
				t.Errorf("rule %q: prompt %d lacks %q", tt.rule, i, tt.phrase)
			}
		}
	}
	if strings.Contains(apart, "When unsure, keep it") {
		t.Error("the main prompt states the observation rules while observations are read apart")
	}
}
