package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/llm"
)

func ExampleNew() {
	// A stand-in for an OpenAI-compatible endpoint.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"choices":[{"message":{"content":"{\"kept\":2}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":12}}`)
	}))
	defer srv.Close()

	cfg := config.LLM{API: "openai", BaseURL: srv.URL, Model: "some-model", APIKeyEnv: "CAIRN_EXAMPLE_KEY"}
	getenv := func(name string) string { return map[string]string{"CAIRN_EXAMPLE_KEY": "k"}[name] }
	model, err := llm.New(cfg, cairn.PurposeConsolidate, getenv)
	if err != nil {
		panic(err)
	}
	usage, _ := llm.OpenUsage("") // in memory; an agent passes filepath.Join(agentDir, llm.UsageFile)
	model = llm.Counting(model, usage)

	res, err := model.Complete(context.Background(), &cairn.LLMRequest{
		System: "Count what is worth keeping.", Prompt: "records ...",
		Schema: json.RawMessage(`{"type":"object","properties":{"kept":{"type":"integer"}},"required":["kept"],"additionalProperties":false}`),
	})
	var invalid *cairn.InvalidOutputError
	switch {
	case errors.Is(err, cairn.ErrUnavailable), errors.Is(err, cairn.ErrBusy):
		fmt.Println("pause:", err)
	case errors.As(err, &invalid):
		fmt.Println("invalid answer:", invalid.Reason, invalid.Raw)
	case err != nil:
		panic(err)
	default:
		fmt.Println(res.Text)
	}
	fmt.Printf("%+v\n", usage.Totals()[cairn.PurposeConsolidate])
	// Output:
	// {"kept":2}
	// {Calls:1 Invalid:0 TokensIn:900 TokensOut:12}
}
