package ingest

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// sessions.json: the JSONL era's session index.

// ocEntry is the part of a sessions.json SessionEntry Cairn reads (§3.2).
type ocEntry struct {
	SessionID        ocLoose         `json:"sessionId"`
	SessionFile      ocLoose         `json:"sessionFile"`
	SessionStartedAt ocLoose         `json:"sessionStartedAt"`
	ChatType         ocLoose         `json:"chatType"`
	LastChannel      ocLoose         `json:"lastChannel"`
	LastTo           ocLoose         `json:"lastTo"`
	LastAccountID    ocLoose         `json:"lastAccountId"`
	Label            ocLoose         `json:"label"`
	DisplayName      ocLoose         `json:"displayName"`
	Subject          ocLoose         `json:"subject"`
	Origin           json.RawMessage `json:"origin"`
	DeliveryContext  json.RawMessage `json:"deliveryContext"`
}

type ocOrigin struct {
	Label              ocLoose `json:"label"`
	Provider           ocLoose `json:"provider"`
	ChatType           ocLoose `json:"chatType"`
	From               ocLoose `json:"from"`
	To                 ocLoose `json:"to"`
	NativeChannelID    ocLoose `json:"nativeChannelId"`
	NativeDirectUserID ocLoose `json:"nativeDirectUserId"`
	AccountID          ocLoose `json:"accountId"`
	Channel            ocLoose `json:"channel"` // deliveryContext
}

// ocApplyIndex fills s's channel metadata from the sessions.json entry next
// to the transcript at path: the entry whose sessionFile names the file,
// else whose sessionId is the session's. A missing or unreadable index
// leaves s as it is.
func ocApplyIndex(s *cairn.Session, path, stem string) {
	data, err := readSibling(filepath.Join(filepath.Dir(path), ocIndexName))
	if err != nil {
		return
	}
	var idx map[string]json.RawMessage
	if json.Unmarshal(data, &idx) != nil {
		return
	}
	keys := make([]string, 0, len(idx))
	for k := range idx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var best *ocEntry
	bestRank := 3
	for _, k := range keys {
		var e ocEntry
		if json.Unmarshal(idx[k], &e) != nil {
			continue
		}
		rank := 3
		switch {
		case e.SessionFile != "" && filepath.Base(string(e.SessionFile)) == stem+".jsonl":
			rank = 0
		case e.SessionID != "" && string(e.SessionID) == s.ID:
			rank = 1
		case e.SessionID != "" && string(e.SessionID) == stem:
			rank = 2
		}
		if rank < bestRank {
			best, bestRank = &e, rank
		}
	}
	if best != nil {
		ocApplyEntry(s, best)
	}
}

func ocApplyEntry(s *cairn.Session, e *ocEntry) {
	var o, d ocOrigin
	_ = json.Unmarshal(e.Origin, &o) // lenient: a malformed origin adds nothing
	_ = json.Unmarshal(e.DeliveryContext, &d)
	s.Provider = ocFirst(o.Provider, e.LastChannel, d.Channel, o.Channel)
	s.ChatType = ocFirst(e.ChatType, o.ChatType)
	s.AccountID = ocFirst(o.AccountID, e.LastAccountID, d.AccountID)
	peer := ocFirst(o.To, e.LastTo, d.To)
	if s.ChatType == "direct" {
		peer = ocFirst(o.From, ocLoose(peer))
	}
	s.ConversationID = ocFirst(o.NativeChannelID, o.NativeDirectUserID, ocLoose(ocBareTarget(peer, s.Provider)))
	s.Label = ocFirst(e.Label, o.Label)
	if s.Title == "" {
		s.Title = ocFirst(e.DisplayName, e.Subject)
	}
	if ms, err := strconv.ParseInt(string(e.SessionStartedAt), 10, 64); err == nil && ms > 0 && s.StartedAt.IsZero() {
		s.StartedAt, s.StartedAtRaw = time.UnixMilli(ms).UTC(), string(e.SessionStartedAt)
	}
}

// ocBareTarget strips a routing target's "<provider>:" and kind prefixes:
// "telegram:5550001" → "5550001", "channel:1100" → "1100".
func ocBareTarget(t, provider string) string {
	if provider != "" {
		t = strings.TrimPrefix(t, provider+":")
	}
	for _, kind := range []string{"channel:", "group:", "user:", "room:", "dm:"} {
		if strings.HasPrefix(t, kind) {
			return t[len(kind):]
		}
	}
	return t
}

func ocFirst(vals ...ocLoose) string {
	for _, v := range vals {
		if s := strings.TrimSpace(string(v)); s != "" {
			return s
		}
	}
	return ""
}
