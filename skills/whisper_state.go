package skills

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairnmemory/cairn/whisper"
)

// nextTurn advances a session's turn counter and returns the new turn.
func (w *Whisperer) nextTurn(agent, sess string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.sessionLocked(agent, sess)
	s.turn++
	return s.turn
}

// modeChanged records the mode of a session's turn and reports whether
// it differs from the session's last one (true on its first turn), so
// the mode is counted once per session, not once per turn.
func (w *Whisperer) modeChanged(agent, sess, mode string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.sessionLocked(agent, sess)
	changed := s.mode != mode
	s.mode = mode
	return changed
}

// sessionLocked returns a session's state, made on first use; w.mu held.
func (w *Whisperer) sessionLocked(agent, sess string) *session {
	k := sessionKey{agent, sess}
	if s, ok := w.sessions[k]; ok {
		return s
	}
	if w.sessions == nil {
		w.sessions = make(map[sessionKey]*session)
	}
	for len(w.sessions) >= MaxSessions && len(w.order) > 0 {
		delete(w.sessions, w.order[0])
		w.order = w.order[1:]
	}
	w.order = slices.DeleteFunc(w.order, func(o sessionKey) bool { _, live := w.sessions[o]; return !live })
	s := &session{suggested: make(map[string]int), opened: make(map[string]int)}
	w.sessions[k] = s
	w.order = append(w.order, k)
	return s
}

// cooling reports whether a skill was named or opened within
// CooldownTurns turns before turn.
func (w *Whisperer) cooling(agent, sess string, sk Skill, turn int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.coolingLocked(w.sessionLocked(agent, sess), sk, turn)
}

func (w *Whisperer) coolingLocked(s *session, sk Skill, turn int) bool {
	last, seen := 0, false
	for _, p := range []string{sk.Real, sk.Path} {
		for _, m := range []map[string]int{s.suggested, s.opened} {
			if t, ok := m[p]; ok {
				last, seen = max(last, t), true
			}
		}
	}
	return seen && turn-last <= w.CooldownTurns
}

// suggest records a skill named at turn, unless it is cooling (a
// concurrent call on the same session may have named it).
func (w *Whisperer) suggest(agent, sess, real string, turn int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.sessionLocked(agent, sess)
	if w.coolingLocked(s, Skill{Real: real, Path: real}, turn) {
		return false
	}
	s.suggested[real] = turn
	return true
}

// history returns the last n messages of a turn's visible conversation
// (whisper.Visible: C29's rules of what a user saw), and the request.
func history(t *whisper.Turn, n int) ([]whisper.Msg, string) {
	conv := whisper.Visible(t)
	h := conv.History
	if n <= 0 {
		h = nil
	} else if len(h) > n {
		h = h[len(h)-n:]
	}
	return h, conv.CurrentRequest
}

// historyText writes messages as "<role>: <text>", blank-line separated.
func historyText(msgs []whisper.Msg) string {
	parts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		parts = append(parts, m.Role+": "+m.Text)
	}
	return strings.Join(parts, "\n\n")
}

// queryText is what retrieval embeds: the history and "user: <prompt>",
// the last MaxQueryChars characters.
func queryText(hist []whisper.Msg, prompt string) string {
	return tail(historyText(append(slices.Clone(hist), whisper.Msg{Role: "user", Text: prompt})), MaxQueryChars)
}

// tail returns the last n characters (runes) of s.
func tail(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[len(r)-n:])
}
