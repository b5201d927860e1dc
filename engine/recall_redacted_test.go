package engine

import (
	"context"
	"testing"

	"github.com/cairnmemory/cairn"
)

// Memories whose cues and concepts were secrets (redacted to the same
// placeholder when stored) are not found by searching the placeholder's
// words, and explore does not join them through it (ux F14).
func TestRedactedCuesAndConcepts(t *testing.T) {
	f := rememberFixture(t, nil)
	ids := rememberAll(t, f.eng,
		cairn.RememberRequest{Kind: "fact", Title: "Billing service", Summary: "The billing service has its own IAM user.",
			Cues: []string{"AKIABILLING123456789"}, Concepts: []string{"AKIABILLING123456789", "billing"}},
		cairn.RememberRequest{Kind: "fact", Title: "Garden watering", Summary: "Water tomatoes every morning in July.",
			Cues: []string{"AKIAGARDEN1234567890"}, Concepts: []string{"AKIAGARDEN1234567890"}},
	)
	billing := ids["The billing service has its own IAM user."]
	m, err := f.eng.Memory(context.Background(), billing)
	if err != nil || len(m.Cues) != 1 || m.Cues[0] != "[REDACTED:aws-access-key-id]" {
		t.Fatalf("stored cues %q, %v; want the placeholder (the test tests nothing otherwise)", m.Cues, err)
	}
	if got := memoryIDs(t, f.eng, "redacted aws access key id", cairn.ModeLexical); len(got) != 0 {
		t.Errorf("a search of the placeholder's words found %v; want none", got)
	}
	res, err := f.eng.Explore(context.Background(), "", &ExploreOptions{IDs: []string{billing}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Related) != 0 {
		t.Errorf("from billing: related %+v; want none (the garden memory shares only a placeholder)", res.Related)
	}
	for _, c := range res.Concepts {
		if c.Name == "[REDACTED:aws-access-key-id]" {
			t.Errorf("concept %+v offered", c)
		}
	}
}
