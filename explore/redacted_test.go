package explore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact"
)

// topicSearch answers every topic with the same hits.
type topicSearch []Hit

func (s topicSearch) SearchTopic(context.Context, string, int) ([]Hit, error) { return s, nil }

// A concept that is only a redaction placeholder is no concept: two
// memories whose concepts were secrets are not joined through it, and it
// is not offered as a place to look next (ux F14).
func TestRedactedConceptIsNoNode(t *testing.T) {
	key := redact.Placeholder("aws-access-key-id")
	if !OnlyRedacted(key) || ConceptKey(key) != "" || OnlyRedacted("plants") || OnlyRedacted("key "+key) {
		t.Fatalf("placeholder %q: OnlyRedacted %v, ConceptKey %q; OnlyRedacted(\"key …\") %v", key, OnlyRedacted(key), ConceptKey(key), OnlyRedacted("key "+key))
	}
	if got := ConceptKey("deploy " + redact.Placeholder("github-token")); got != "deploy" {
		t.Errorf("ConceptKey of a concept with a placeholder inside = %q, want deploy", got)
	}
	g := Build([]cairn.Memory{mem("billing", key, "billing"), mem("garden", key), mem("plants", "plants")}, nil)
	if g.Stats().Concepts != 2 {
		t.Errorf("concepts %d, want 2 (billing, plants)", g.Stats().Concepts)
	}
	res := explore(t, exact(g), &Request{IDs: []string{"billing"}})
	if len(res.Related) != 0 || len(res.Concepts) != 0 {
		t.Errorf("from billing: related %+v, concepts %+v; want none", res.Related, res.Concepts)
	}
}

// A topic that is a concept's name (in any spelling ConceptKey folds)
// starts from the memories that name it, before the search's hits, which
// fill the seeds after them; a memory the filter keeps out is neither a
// seed nor reported excluded.
func TestTopicIsConcept(t *testing.T) {
	g := Build([]cairn.Memory{mem("units", "measurement"), mem("scale", "Measurement"), mem("deploy", "tokens"), mem("hidden", "measurement")}, nil)
	x := exact(g)
	x.Search = topicSearch{{ID: "deploy", Score: 0.318}, {ID: "scale", Score: 0.2}}
	res := explore(t, x, &Request{Topic: " measurement ", Filter: func(id string) bool { return id != "hidden" }})
	var got []string
	for _, f := range res.Found {
		got = append(got, f.ID+"/"+f.Origin)
	}
	want := "scale/concept units/concept deploy/search"
	if s := fmt.Sprint(got); s != "["+want+"]" {
		t.Errorf("seeds %v, want [%s]", got, want)
	}
	if len(res.Excluded) != 0 {
		t.Errorf("excluded %v; want none (hidden was not asked for)", res.Excluded)
	}
	res = explore(t, x, &Request{Topic: "MEASUREMENT", Seeds: 2})
	if len(res.Found) != 2 || res.Found[0].ID != "scale" || res.Found[0].SearchScore != 0.2 || res.Found[1].ID != "hidden" {
		t.Errorf("two seeds: %+v; want scale (the concept's memory the search found), then hidden (the first other by id)", res.Found)
	}
	x.Search = topicSearch{{ID: "deploy", Score: 0.3}}
	res = explore(t, x, &Request{Topic: "deploy tokens"}) // not a concept's name: the search alone
	if len(res.Found) != 1 || res.Found[0].Origin != "search" {
		t.Errorf("a topic that names no concept: %+v", res.Found)
	}
}

// explore's errors name no command: the CLI and MCP say "explore: "
// before them, which read "explore: explore: ..." (ux F18).
func TestErrorsNameNoCommand(t *testing.T) {
	for _, r := range []*Request{nil, {}, {IDs: []string{"a"}, Limit: MaxLimit + 1}, {Topic: "t"}} {
		_, err := New(Build(nil, nil), nil, nil).Explore(context.Background(), r)
		if err == nil || strings.HasPrefix(err.Error(), "explore:") {
			t.Errorf("Explore(%+v) = %v; want an error without the prefix", r, err)
		}
	}
}
