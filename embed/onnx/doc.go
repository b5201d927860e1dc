// Package onnx embeds texts locally with an ONNX sentence encoder run by
// ONNX Runtime (through github.com/yalue/onnxruntime_go and cgo): no network,
// no Python.
//
// A model directory holds model.onnx, tokenizer.json (read by the caller's
// Tokenizer) and optionally cairn-model.json (see Manifest). Without a
// manifest the input style is read from the model's input names:
//
//   - indices [N,2] and values [N] ("ragged", the Universal Sentence Encoder
//     lite): the model pools and normalizes itself; at most 128 tokens per
//     text and ids below 8002.
//   - input_ids [B,S], with attention_mask and token_type_ids when the model
//     has them ("dense", BERT-style encoders): sentence_embedding is used
//     when the model has it, else last_hidden_state averaged over the
//     attention mask, then L2-normalized.
//
// Empty texts get a zero vector. The ONNX Runtime library is loaded once per
// process from Options.Library.
//
// Quick start:
//
//	e, err := onnx.New(onnx.Options{
//		ModelDir:  "/models/use-lite",
//		Library:   "/opt/onnxruntime/libonnxruntime.so.1",
//		Tokenizer: tok, // anything with Encode(text string) []int
//	})
//	if err != nil { ... }
//	defer e.Close()
//	vecs, err := e.Embed(ctx, cairn.EmbedDocument, []string{"The user prefers dark mode."})
package onnx
