package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/cairnmemory/cairn"
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
		return v, cairn.Invalidf("%s: got a JSON %s, want %s", te.Field, te.Value, typeName(te.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return v, cairn.Invalidf("unknown field %s: allowed %s", name, strings.Join(fieldNames(reflect.TypeFor[T](), ""), ", "))
	default:
		return v, cairn.Invalidf("arguments are not valid JSON: %v", err)
	}
}

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
	case ToolSyncStatus, ToolDiagnostics:
		_, err = decode[Empty](raw)
	}
	return err
}

// checkArguments is receiving middleware that runs Agent.check on every
// tools/call and answers a bad call with a tool error.
func (a *Agent) checkArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && call.Params != nil {
			if err := a.check(call.Params.Name, call.Params.Arguments); err != nil {
				res := &mcp.CallToolResult{}
				res.SetError(fmt.Errorf("%s: %w", call.Params.Name, err))
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}
