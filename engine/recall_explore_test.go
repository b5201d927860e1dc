package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/explore"
)

// TestExploreWiring: Engine.Explore seeds the walk with the topic's
// memory search hits (or given ids) and reaches, through shared concepts,
// memories the search did not find; the filter holds for seeds and walk.
func TestExploreWiring(t *testing.T) {
	f := rememberFixture(t, nil)
	ids := rememberAll(t, f.eng,
		cairn.RememberRequest{Kind: "fact", Title: "Release signing", Summary: "Release artifacts are signed with cosign.", Concepts: []string{"cosign", "release"}},
		cairn.RememberRequest{Kind: "procedure", Title: "Rotate the cosign key", Summary: "Generate a new key pair and upload it to the vault.", Concepts: []string{"cosign", "keys"}},
		cairn.RememberRequest{Kind: "fact", Title: "Vault holds secrets", Summary: "The team vault stores the deploy keys.", Concepts: []string{"vault", "keys"}},
		cairn.RememberRequest{Kind: "fact", Title: "Garden compost", Summary: "The tomatoes need compost in spring.", Concepts: []string{"garden"}},
	)
	sign, rotate, vault, garden := ids["Release artifacts are signed with cosign."], ids["Generate a new key pair and upload it to the vault."],
		ids["The team vault stores the deploy keys."], ids["The tomatoes need compost in spring."]
	ctx := context.Background()
	res, err := f.eng.Explore(ctx, "release signing", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Found) != 1 || res.Found[0].ID != sign || res.Found[0].Origin == "" {
		t.Fatalf("found %+v, want the signing fact", res.Found)
	}
	reached := map[string]explore.Related{}
	for _, r := range res.Related {
		reached[r.ID] = r
	}
	r, ok := reached[rotate]
	if !ok || len(r.Path) != 1 || r.Path[0].Via != explore.ViaConcept || r.Path[0].Concept != "cosign" {
		t.Fatalf("rotate: %+v (related %+v)", r, res.Related)
	}
	if v, ok := reached[vault]; !ok || len(v.Path) != 2 || v.Score >= r.Score {
		t.Fatalf("vault, two hops out: %+v", v)
	}
	if _, ok := reached[garden]; ok {
		t.Fatalf("the garden fact was reached: %+v", res.Related)
	}

	facts, err := f.eng.Explore(ctx, "release signing", &ExploreOptions{Filter: &cairn.MemorySearch{Kinds: []string{"fact"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts.Found) != 1 || len(facts.Related) != 0 {
		t.Fatalf("facts only: found %+v related %+v (the vault fact is reached only through the procedure)", facts.Found, facts.Related)
	}

	byID, err := f.eng.Explore(ctx, "", &ExploreOptions{IDs: []string{garden}})
	if err != nil || len(byID.Found) != 1 || byID.Found[0].ID != garden || len(byID.Related) != 0 {
		t.Fatalf("from the garden id: %+v, %v", byID, err)
	}
	if _, err := f.eng.Explore(ctx, " ", nil); !errors.Is(err, cairn.ErrInvalid) {
		t.Fatalf("no topic, no ids: %v", err)
	}
	if _, err := f.eng.Explore(ctx, "x", &ExploreOptions{Filter: &cairn.MemorySearch{Kinds: []string{"gossip"}}}); !errors.Is(err, cairn.ErrInvalid) {
		t.Fatalf("bad kind: %v", err)
	}
}

// TestExploreNeighbours: with an embedder, explore reaches a memory that
// shares no concept and no link with the seed through the seed's nearest
// memories by key vector (spec §7), from lists kept in the store; a
// memory remembered later near the seed is reached on the next walk (its
// list, computed when it was embedded, was offered to the seed's). Before,
// the engine's walk had no neighbour edges.
func TestExploreNeighbours(t *testing.T) {
	ctx := context.Background()
	f := rememberFixture(t, &conceptEmbedder{model: "v1"})
	ids := rememberAll(t, f.eng,
		cairn.RememberRequest{Kind: "fact", Title: "Compost the garden", Summary: "Garden soil needs compost.", Concepts: []string{"beds"}},
		cairn.RememberRequest{Kind: "fact", Title: "Tomatoes in soil", Summary: "Tomatoes grow in garden soil.", Concepts: []string{"greenhouse"}},
		cairn.RememberRequest{Kind: "fact", Title: "Quarterly budget", Summary: "Quarterly finance spending review.", Concepts: []string{"money"}},
	)
	seed, near, far := ids["Garden soil needs compost."], ids["Tomatoes grow in garden soil."], ids["Quarterly finance spending review."]
	related := func() map[string]explore.Related {
		t.Helper()
		res, err := f.eng.Explore(ctx, "", &ExploreOptions{IDs: []string{seed}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]explore.Related{}
		for _, r := range res.Related {
			out[r.ID] = r
		}
		return out
	}
	got := related()
	r, ok := got[near]
	if !ok || len(r.Path) != 1 || r.Path[0].Via != explore.ViaNeighbour {
		t.Fatalf("the tomatoes fact: %+v (related %+v); want it reached as a nearest neighbour", r, got)
	}
	if c, ok := got[far]; ok && c.Score >= r.Score {
		t.Errorf("the budget fact scores %v, the tomatoes fact %v", c.Score, r.Score)
	}
	if n, err := f.eng.store.CountNeighbours(ctx, f.eng.identity()); err != nil || n < 3 {
		t.Errorf("stored lists: %d, %v; want one per memory", n, err)
	}

	later := rememberAll(t, f.eng, cairn.RememberRequest{Kind: "fact", Title: "Compost soil", Summary: "Turn the compost into the garden soil.", Concepts: []string{"autumn"}})
	id := later["Turn the compost into the garden soil."]
	if r, ok := related()[id]; !ok || r.Path[0].Via != explore.ViaNeighbour {
		t.Fatalf("a memory remembered after the seed's list was made: %+v; want it reached as a neighbour", r)
	}
}
