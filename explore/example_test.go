package explore_test

import (
	"context"
	"fmt"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/explore"
)

// Explore from one memory: the release checklist names cosign, as does
// the signing decision, which a related link joins to the key rotation.
// release.yml, which only the checklist names, is not a place to look
// next; lunch is never reached.
func ExampleExplorer_Explore() {
	memories := []cairn.Memory{
		{ID: "checklist", Concepts: []string{"cosign", "release.yml"}},
		{ID: "signing", Concepts: []string{"cosign"}},
		{ID: "rotation", Concepts: []string{"KMS"}},
		{ID: "lunch", Concepts: []string{"pizza"}},
	}
	links := []cairn.MemoryLink{{From: "signing", To: "rotation", Kind: cairn.LinkRelated}}
	x := explore.New(explore.Build(memories, links), nil, nil)
	res, err := x.Explore(context.Background(), &explore.Request{IDs: []string{"checklist"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Related {
		fmt.Printf("%s %.3f", r.ID, r.Score)
		for _, s := range r.Path {
			fmt.Printf(", %s", s)
		}
		fmt.Println()
	}
	fmt.Println("look next:", res.Concepts[0].Name)
	// Output:
	// signing 0.040, via concept cosign
	// rotation 0.013, via concept cosign, via related link from signing
	// look next: cosign
}
