package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Example serves an agent's tools over the SDK's in-memory transports and
// reads a document with memory_get.
func Example() {
	ctx := context.Background()
	notes, _ := os.MkdirTemp("", "notes")
	data, _ := os.MkdirTemp("", "cairn")
	defer os.RemoveAll(notes)
	defer os.RemoveAll(data)
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms.\n"), 0o644)

	eng, err := local.Open(ctx, engine.Options{Dir: data,
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}}}})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		log.Fatal(err)
	}
	agent := mcpserver.NewAgent("default", eng)
	defer agent.Close(ctx)

	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := mcpserver.NewMCPServer(agent, nil).Connect(ctx, serverSide, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolGet,
		Arguments: map[string]any{"path": "cairn://notes/db.md", "from": 3, "lines": 1}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// {"from":3,"lines":1,"path":"cairn://notes/db.md","status":"ok","text":"Set busy_timeout to 5000 ms.\n"}
}
