package onnx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
)

// PeekIdentity is the identity New(o) gives, read without loading the
// runtime or the model: from the header of a cache file in o.CacheDir
// made from this model file (the same device, inode, size and
// modification time) with this quantization, and from the directory's
// tokenizer.json and manifest. ok is false without such a file, or when
// only a run of the model would tell the dimension.
//
// It lets a one-shot hybrid search load its vectors (which are stored by
// identity) while the model loads on another core, instead of after it
// (cmd/cairn's lazyEmbedder). Any runtime version's or CPU's file will do:
// the identity names the model's weights, the quantization and the
// tokenizer, none of which the optimization changes. New itself never
// trusts a peek: it reads the file again and checks its checksum, or
// reads and hashes the model.
func PeekIdentity(o Options) (id cairn.EmbedderIdentity, ok bool) {
	if o.CacheDir == "" || !cacheSupported {
		return id, false
	}
	q, err := normalizeQuantize(o.Quantize)
	if err != nil {
		return id, false
	}
	top, err := int8Top(o.Int8Bits)
	if err != nil {
		return id, false
	}
	st, err := statOf(filepath.Join(o.ModelDir, ModelFile))
	if err != nil {
		return id, false
	}
	m, err := readManifest(o.ModelDir)
	if err != nil {
		return id, false
	}
	files, _ := filepath.Glob(filepath.Join(o.CacheDir, "onnx-*.ort"))
	for _, f := range files {
		hdr, err := readCacheHeader(f)
		if err != nil || hdr.Stat != st || hdr.Quantize != quantizeKey(q, top) {
			continue
		}
		sum, err := hex.DecodeString(hdr.ModelSHA256)
		if err != nil || len(sum) != 32 {
			continue
		}
		sp, err := resolve(m, hdr.Inputs, hdr.Outputs)
		if err != nil || sp.dim == 0 {
			continue
		}
		if o.MaxTokens > 0 {
			sp.maxTokens = min(o.MaxTokens, sp.maxTokens)
		}
		o.Quantize = q
		return identityOf(o, sum, sp), true
	}
	return id, false
}

// readCacheHeader reads the header of a cache file (cache.go) without
// mapping or checking the body.
func readCacheHeader(path string) (cacheHeader, error) {
	var hdr cacheHeader
	f, err := os.Open(path)
	if err != nil {
		return hdr, err
	}
	defer f.Close()
	head := make([]byte, cacheAlign)
	if _, err := io.ReadFull(f, head); err != nil {
		return hdr, err
	}
	if !bytes.HasPrefix(head, []byte(cacheMagic)) {
		return hdr, errCacheDamaged
	}
	line, _, ok := bytes.Cut(head[len(cacheMagic):], []byte("\n"))
	if !ok {
		return hdr, errCacheDamaged
	}
	if err := json.Unmarshal(line, &hdr); err != nil {
		return hdr, errCacheDamaged
	}
	return hdr, nil
}

// identityOf names the vectors of the model in o.ModelDir whose file has
// SHA-256 sum, quantized as o.Quantize (normalized), run as sp says.
func identityOf(o Options, sum []byte, sp spec) cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "onnx", Model: modelID(o.ModelDir, sum) + quantizeSuffix(o.Quantize), Dimension: sp.dim,
		Normalized: sp.normalize, QueryPrefix: sp.queryPrefix, DocumentPrefix: sp.docPrefix,
		Tokenizer: tokenizerID(o.ModelDir)}
}

// IdentityFor is the identity New(o) would give, without the runtime:
// PeekIdentity when a cache file names it, else from model.onnx itself
// (read and hashed, its inputs and outputs read from the graph). It fails
// when the model cannot be read or only a run would tell the dimension.
// With quantize, the same model's identity under another quantization
// ("" or "none", or "int8") is the same but for the "+int8" suffix
// (QuantizedIdentity).
func IdentityFor(o Options) (cairn.EmbedderIdentity, error) {
	if id, ok := PeekIdentity(o); ok {
		return id, nil
	}
	q, err := normalizeQuantize(o.Quantize)
	if err != nil {
		return cairn.EmbedderIdentity{}, cairn.Invalidf("onnx embedder: %v", err)
	}
	o.Quantize = q
	m, err := readManifest(o.ModelDir)
	if err != nil {
		return cairn.EmbedderIdentity{}, err
	}
	model, err := os.ReadFile(filepath.Join(o.ModelDir, ModelFile))
	if err != nil {
		return cairn.EmbedderIdentity{}, modelError(o.ModelDir, err)
	}
	sum := sha256.Sum256(model)
	ins, outs, err := modelInfo(model)
	if err != nil {
		return cairn.EmbedderIdentity{}, cairn.Invalidf("read model %s: %v", o.ModelDir, err)
	}
	sp, err := resolve(m, ins, outs)
	if err != nil {
		return cairn.EmbedderIdentity{}, err
	}
	if sp.dim == 0 {
		return cairn.EmbedderIdentity{}, cairn.Invalidf("model %s: its output does not fix the dimension", o.ModelDir)
	}
	return identityOf(o, sum[:], sp), nil
}

// QuantizedIdentity is id (an onnx identity) under quantization q
// ("" or "none", or "int8").
func QuantizedIdentity(id cairn.EmbedderIdentity, q string) cairn.EmbedderIdentity {
	id.Model = strings.TrimSuffix(id.Model, quantizeSuffix(QuantizeInt8))
	if nq, err := normalizeQuantize(q); err == nil {
		id.Model += quantizeSuffix(nq)
	}
	return id
}
