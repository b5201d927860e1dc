package web_test

import (
	"context"
	"log"
	"net/http"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/cairnmemory/cairn/web"
)

// The pages are mounted on the API handler, behind its guard, as cairn
// serve does.
func ExampleNew() {
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: "/tmp/cairn-data",
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{"/home/me/notes"}}}})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close(ctx)
	agent := mcpserver.NewAgent("default", eng)
	defer agent.Close(ctx)
	pages, err := web.New(web.Options{Agent: agent})
	if err != nil {
		log.Fatal(err)
	}
	defer pages.Close(ctx) // waits for a sync the pages started
	h, err := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: []*mcpserver.Agent{agent}, UI: pages})
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:7777", h)) // search at http://127.0.0.1:7777/?q=WORDS
}
