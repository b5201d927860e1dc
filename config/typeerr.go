package config

import (
	"fmt"
	"reflect"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// Type errors outside [[corpus]]: the decoder names Go struct fields
// ("cannot decode TOML float into struct field config.rawMemoryWhisperer.
// MaxHints of type int"); typeError says it as the file does: the table,
// the key, the value written and what the key allows.

// valueRules are the allowed values of keys whose type alone says too
// little, by dotted key ("*" for any [llm.<purpose>]).
var valueRules = map[string]string{
	"memorySearch.mode":                   `"local" or "judged"`,
	"memoryWhisperer.corpora":             "an array of corpus names",
	"memoryWhisperer.minUsefulness":       "a number from 0 to 1",
	"memoryWhisperer.maxHints":            "an integer from 1 to 2",
	"memoryWhisperer.cooldownTurns":       fmt.Sprintf("an integer from 0 to %d", MaxWhisperCooldownTurns),
	"memoryWhisperer.timeoutMs":           fmt.Sprintf("an integer from 1 to %d", MaxWhisperTimeoutMs),
	"memoryWhisperer.queryModel":          "a table: [memoryWhisperer.queryModel] with " + strings.Join(queryModelKeys, ", "),
	"memoryWhisperer.queryModel.endpoint": "an http:// or https:// URL as a string",
	"memoryWhisperer.queryModel.api":      `"openai" or "anthropic"`,
	"store.url":                           `a string, "postgres://user@host:port/database"`,
	"store.maxConns":                      "an integer from 0 (the driver's default) to 1000",
	"store.access":                        "a path as a string",
	"qualityAudit.corpora":                "an array of corpus names",
	"qualityAudit.minNoise":               "a number from 0 to 1",
	"evidenceReview.corpora":              "an array of corpus names",
	"llm.*.api":                           `"openai" or "anthropic"`,
	"llm.*.base_url":                      "an http:// or https:// URL as a string",
	"llm.*.timeout_seconds":               "an integer from 1 to 3600",
	"llm.*.max_output_tokens":             "an integer from 1 to 200000",
	"llm.*.timeout_ms":                    fmt.Sprintf("an integer from 1 to %d", MaxJudgeTimeoutMs),
	"embedder.base_url":                   "an http:// or https:// URL as a string",
	"embedder.provider":                   `"onnx", "openai" or "none"`,
}

// typeError is the message of a decoder type error at key (outside
// [[corpus]]): "[table] key = value; allowed: ...".
func typeError(data []byte, key []string) string {
	allowed := allowedValue(key)
	value := "this value"
	if v, ok := lookup(data, key); ok {
		value = tomlValue(v)
	}
	if len(key) == 1 {
		return fmt.Sprintf("%s = %s; allowed: %s", key[0], value, allowed)
	}
	table, k := strings.Join(key[:len(key)-1], "."), key[len(key)-1]
	return fmt.Sprintf("[%s] %s = %s; allowed: %s", table, k, value, allowed)
}

// allowedValue says what key holds: its rule, else its type.
func allowedValue(key []string) string {
	dotted := strings.Join(key, ".")
	if len(key) == 3 && key[0] == "llm" {
		dotted = "llm.*." + key[2]
	}
	if r, ok := valueRules[dotted]; ok {
		return r
	}
	t := reflect.TypeOf(rawFile{})
	for _, part := range key {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := fieldByTag(t, part)
			if !ok {
				return "a value of the right type; see docs/configuration.md"
			}
			t = f.Type
		case reflect.Map:
			t = t.Elem()
		default:
			return "a value of the right type; see docs/configuration.md"
		}
	}
	if t.Kind() == reflect.Struct || t.Kind() == reflect.Map || t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		return fmt.Sprintf("a table, [%s]", dotted)
	}
	return typeName(t)
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("toml"), ","); tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// typeName says a Go type of the raw tables as TOML values.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "an array of strings"
		}
		return "an array"
	case reflect.Struct, reflect.Map:
		return "a table"
	}
	return "a value of the right type"
}

// lookup returns the value the file holds at key, when it decodes.
func lookup(data []byte, key []string) (any, bool) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, false
	}
	var v any = doc
	for _, part := range key {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[part]; !ok {
			return nil, false
		}
	}
	return v, true
}
