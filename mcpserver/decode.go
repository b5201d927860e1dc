package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decode reads the JSON object data (empty or null: no fields) into T. An
// unknown field, a wrong type or anything but one object is an error that
// matches cairn.ErrInvalid and names the field.
func decode[T any](data []byte) (T, error) {
	var v T
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return v, nil
	}
	if data[0] != '{' {
		return v, cairn.Invalidf("arguments must be a JSON object, got %s", jsonKind(data[0]))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = errors.New("data after the object")
	}
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return v, nil
	case errors.As(err, &te) && te.Field != "":
		return v, typeError[T](te)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return v, cairn.Invalidf("unknown field %s: allowed %s", name, strings.Join(fieldNames(reflect.TypeFor[T](), ""), ", "))
	default:
		return v, cairn.Invalidf("arguments are not valid JSON: %v", err)
	}
}

// typeError explains a value that does not fit its field. A number that
// does not fit a numeric field (too large for an int, fractional for one,
// beyond float64) gets the field's allowed range, as an in-range check
// would; any other value gets the JSON type wanted.
func typeError[T any](te *json.UnmarshalTypeError) error {
	lo, hi, ranged := fieldRange(reflect.TypeFor[T](), te.Field)
	want := typeName(te.Type)
	if ranged {
		want = fmt.Sprintf("%s from %s to %s", want, formatNum(lo), formatNum(hi))
	}
	literal, isNumber := strings.CutPrefix(te.Value, "number ")
	if !isNumber || !ranged {
		return cairn.Invalidf("%s: got a JSON %s, want %s", te.Field, te.Value, want)
	}
	f, _, err := big.ParseFloat(literal, 10, 0, big.ToNearestEven)
	isInt := err == nil && f.IsInt()
	inRange := err == nil && f.Cmp(big.NewFloat(lo)) >= 0 && f.Cmp(big.NewFloat(hi)) <= 0
	switch k := derefKind(te.Type); {
	case !inRange:
		return cairn.Invalidf("%s %s out of range: allowed %s to %s", te.Field, literal, formatNum(lo), formatNum(hi))
	case k == reflect.Int && !isInt:
		return cairn.Invalidf("%s %s is not an integer: want %s", te.Field, literal, want)
	case k == reflect.Int:
		return cairn.Invalidf("%s %s: write %s without a fraction or exponent", te.Field, literal, want)
	}
	return cairn.Invalidf("%s: got a JSON %s, want %s", te.Field, te.Value, want)
}

func derefKind(t reflect.Type) reflect.Kind {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Int64 {
		return reflect.Int
	}
	return t.Kind()
}

func formatNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// fieldRange returns the minimum and maximum the input schema of tool
// input type t gives the field at path (dotted for nested objects).
func fieldRange(t reflect.Type, path string) (lo, hi float64, ok bool) {
	s := inputSchemas()[t]
	for name := range strings.SplitSeq(path, ".") {
		if s == nil {
			return 0, 0, false
		}
		s = s.Properties[name]
	}
	if s == nil || s.Minimum == nil || s.Maximum == nil {
		return 0, 0, false
	}
	return *s.Minimum, *s.Maximum, true
}

// inputSchemas are the advertised input schemas by input type.
var inputSchemas = sync.OnceValue(func() map[reflect.Type]*jsonschema.Schema {
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[SearchIn](): searchSchema(),
		reflect.TypeFor[GetIn]():    getSchema(),
	}
})

func jsonKind(b byte) string {
	switch {
	case b == '[':
		return "an array"
	case b == '"':
		return "a string"
	default:
		return "a scalar"
	}
}

func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // json.RawMessage: any JSON
			return "a JSON value"
		}
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(typeName(t.Elem()), "a "), "an ") + "s"
	case reflect.Struct:
		return "an object"
	}
	return t.String()
}

// fieldNames lists the JSON names of a struct's fields, nested objects as
// parent.child; "none" for a struct without fields.
func fieldNames(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, prefix+name)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			out = append(out, fieldNames(ft, prefix+name+".")...)
		}
	}
	if len(out) == 0 && prefix == "" {
		return []string{"none (this tool takes no input)"}
	}
	return out
}

// check validates the arguments of a call to tool name exactly as the
// tool itself will, so a bad call fails with Cairn's message (naming the
// field and the allowed values) before the SDK's schema validation.
func (a *Agent) check(name string, raw json.RawMessage) error {
	var err error
	switch name {
	case ToolSearch:
		if a.judged() {
			err = a.checkJudged(raw) // judged.go
			break
		}
		var in SearchIn
		if in, err = decode[SearchIn](raw); err == nil {
			_, _, err = a.searchOptions(in)
		}
	case ToolGet:
		var in GetIn
		if in, err = decode[GetIn](raw); err == nil {
			_, _, err = getOptions(in)
		}
	case ToolSyncSessions:
		_, err = decode[SyncSessionsIn](raw)
	case ToolRemember:
		err = checkRemember(raw)
	case ToolForget:
		err = checkForget(raw)
	case ToolGather:
		var in GatherIn
		if in, err = decode[GatherIn](raw); err == nil {
			_, err = gatherOptions(in)
		}
	case ToolExplore:
		var in ExploreIn
		if in, err = decode[ExploreIn](raw); err == nil {
			_, _, err = exploreOptions(in)
		}
	case ToolSyncStatus, ToolDiagnostics:
		_, err = decode[Empty](raw)
	default:
		err = a.checkCuration(name, raw) // curation.go
	}
	return err
}

// checkArguments is receiving middleware that runs Agent.check on every
// tools/call and answers a bad call with a tool error.
func (a *Agent) checkArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && call.Params != nil {
			err := scopeArguments(ctx, call.Params.Arguments) // access.go: a corpus outside the grant first
			if err == nil {
				err = a.check(call.Params.Name, call.Params.Arguments)
			}
			if err != nil {
				res := &mcp.CallToolResult{}
				res.SetError(fmt.Errorf("%s: %w", call.Params.Name, err))
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}
