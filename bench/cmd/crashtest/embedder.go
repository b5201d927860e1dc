package main

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
)

// fakeDim is the dimension of the fake embedder's vectors.
const fakeDim = 256

// fakeEmbeddings serves an OpenAI-compatible POST /v1/embeddings whose
// vectors are a function of the text alone (each word adds a random
// direction seeded by its hash; normalized), so a killed sync and a clean
// one embed a chunk alike. The vectors are dense and wide enough that the
// vector index's sign codes rarely tie (with 32 one-hot buckets they tied
// by the hundred and the approximate search's picks among ties followed
// insertion order). It counts the texts it embedded.
func fakeEmbeddings() (*httptest.Server, *atomic.Int64) {
	var texts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{Data: make([]item, len(req.Input))}
		for i, t := range req.Input {
			out.Data[i] = item{Index: i, Embedding: embedText(t)}
		}
		texts.Add(int64(len(req.Input)))
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	return srv, &texts
}

func embedText(t string) []float32 {
	v := make([]float32, fakeDim)
	for _, w := range strings.Fields(strings.ToLower(t)) {
		h := fnv.New64a()
		h.Write([]byte(w))
		r := rand.New(rand.NewPCG(h.Sum64(), 0xe4b))
		for i := range v {
			v[i] += float32(r.NormFloat64())
		}
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		v[0], n = 1, 1
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}
