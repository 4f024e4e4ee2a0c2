package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/jsonpos"
)

// ErrSchema reports an export of a newer version than this ctxlab reads. Test it with
// errors.Is; the other problems of an export wrap chat.ErrInvalid.
var ErrSchema = errors.New("unsupported export version")

// ExportError is a problem of an export file, or of the chat it holds, and where it is.
// ReadExport knows the file: it gives the byte offset (and line and column) of the
// problem. ImportChat and CheckExport check a decoded Export: they give the path of the
// offending value in the export's JSON, as Encode writes it (chat.active_branch,
// branches[1].head), which Locate finds in the file the export was read from. It wraps
// chat.ErrInvalid, or ErrSchema for an export of a newer version.
type ExportError struct {
	// Path locates the offending value; empty for the whole file.
	Path jsonpos.Path
	// Key tells that the problem is the key Path ends with (an unknown field), not its value.
	Key bool
	// Offset is the byte offset of the problem in the file, or -1 when only Path is known;
	// Line and Col (1-based, columns in code points) are set with it.
	Offset    int64
	Line, Col int
	// Msg says what is wrong, naming the record concerned (`branch "main-v2": head
	// "ghost" is not a message of the chat`).
	Msg  string
	kind error
}

// Error returns "line L, column C: message" when the position is known, else the message.
func (e *ExportError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	return e.Msg
}

// Unwrap returns the kind of the error: chat.ErrInvalid or ErrSchema.
func (e *ExportError) Unwrap() error { return e.kind }

// Locate returns the line and column (1-based, columns in code points) of the problem in
// b, the file the export was read from: at Offset when known, else at the value Path
// names (at its key with Key), or at the nearest enclosing value that is there, so that a
// missing field is reported at the object that lacks it.
func (e *ExportError) Locate(b []byte) (line, col int) {
	if e.Line > 0 {
		return e.Line, e.Col
	}
	return jsonpos.LineCol(b, e.offsetIn(b))
}

// offsetIn returns the offset of the problem in b.
func (e *ExportError) offsetIn(b []byte) int64 {
	if e.Offset >= 0 {
		return e.Offset
	}
	if e.Key {
		off, _ := jsonpos.FindKey(b, e.Path)
		return off
	}
	off, _ := jsonpos.Find(b, e.Path)
	return off
}

// exportErr returns a chat.ErrInvalid problem of the value at path.
func exportErr(path jsonpos.Path, format string, args ...any) *ExportError {
	return &ExportError{Path: path, Offset: -1, Msg: fmt.Sprintf(format, args...), kind: chat.ErrInvalid}
}

// at returns err as a problem of the value at path: an *ExportError or a *chat.FieldError
// of a part of that value gets path put before its own; another error becomes one at path.
func at(err error, path ...any) error {
	if err == nil {
		return nil
	}
	var ee *ExportError
	if errors.As(err, &ee) {
		c := *ee
		c.Path = jsonpos.Path(path).Append(ee.Path...)
		return &c
	}
	var fe *chat.FieldError
	if errors.As(err, &fe) {
		return &ExportError{Path: jsonpos.Path(path).Append(fe.Path...), Offset: -1, Msg: fe.Msg, kind: chat.ErrInvalid}
	}
	return &ExportError{Path: jsonpos.Path(path).Append(), Offset: -1, Msg: err.Error(), kind: chat.ErrInvalid}
}

// invalidAt returns a problem of the part at path of a record, as the record checks of
// package chat report theirs.
func invalidAt(path jsonpos.Path, format string, args ...any) error {
	return &chat.FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// fileErr returns an chat.ErrInvalid problem at byte offset off of the file b.
func fileErr(b []byte, off int64, path jsonpos.Path, key bool, format string, args ...any) *ExportError {
	e := exportErr(path, format, args...)
	e.Key = key
	return e.placeAt(b, off)
}

// placeAt sets the place of e in the file b: byte offset off, kept inside the file.
func (e *ExportError) placeAt(b []byte, off int64) *ExportError {
	e.Offset = min(max(off, 0), int64(len(b)))
	e.Line, e.Col = jsonpos.LineCol(b, e.Offset)
	return e
}

// placed returns err (an *ExportError, or another error as one of the whole file) with
// its position in the file b.
func placed(b []byte, err error) error {
	var ee *ExportError
	if !errors.As(err, &ee) {
		return fileErr(b, jsonpos.Start(b), nil, false, "%v", err)
	}
	c := *ee
	return c.placeAt(b, ee.offsetIn(b))
}

// decodeProblem describes the first value of the export file b that decoding into an
// Export rejects: an unknown field, or a value of the wrong type.
func decodeProblem(b []byte, t reflect.Type, decErr error) error {
	p, ok := jsonpos.FirstProblem(b, t)
	if !ok {
		// Not one the walk finds (it follows encoding/json closely): the decoder's own
		// error, at its offset when it has one.
		var typ *json.UnmarshalTypeError
		if errors.As(decErr, &typ) {
			path, off := jsonpos.At(b, typ.Offset-1)
			return fileErr(b, off, path, false, "%s: cannot be %s", typ.Field, typ.Value)
		}
		return fileErr(b, jsonpos.Start(b), nil, false, "%s", strings.TrimPrefix(decErr.Error(), "json: "))
	}
	return problemError(nil, p).placeAt(b, p.Offset)
}

// problemError describes p, a problem found in the value at path prefix of an export
// (nil: the whole export), as an error at the path of the offending value: an unknown
// field (at its key), or a value of the wrong type.
func problemError(prefix jsonpos.Path, p jsonpos.Problem) *ExportError {
	path := prefix.Append(p.Path...)
	if p.Unknown {
		key := path[len(path)-1].(string)
		in := " in " + path[:len(path)-1].String()
		if len(path) == 1 {
			in = " in the export"
		}
		e := exportErr(path, "unknown field %q%s%s", key, in, diag.Hint(key, p.Known, "known fields"))
		e.Key = true
		return e
	}
	where := path.String()
	if where == "" {
		where = "the export"
	}
	return exportErr(path, "%s: %s", where, typeProblem(p))
}

var timeType = reflect.TypeFor[time.Time]()

// typeProblem says what is wrong with a value of the wrong type.
func typeProblem(p jsonpos.Problem) string {
	t := p.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	got := jsonpos.Kind(p.Raw)
	if t == timeType {
		if got == "a string" {
			var s string
			_ = json.Unmarshal(p.Raw, &s)
			return fmt.Sprintf("want a time like \"2006-01-02T15:04:05Z\" (RFC 3339), not %q", s)
		}
		return fmt.Sprintf("want a time like \"2006-01-02T15:04:05Z\" (RFC 3339), not %s", got)
	}
	var typ *json.UnmarshalTypeError
	if !errors.As(p.Err, &typ) {
		return strings.TrimPrefix(p.Err.Error(), "json: ")
	}
	want := goKind(t)
	if got == "a number" {
		integer := !bytes.ContainsAny(p.Raw, ".eE")
		switch {
		case want == "a number", want == "an integer" && integer, want == "a non-negative integer" && integer && p.Raw[0] != '-':
			return fmt.Sprintf("the number %s is out of range", p.Raw)
		}
		got = "the number " + string(p.Raw)
	}
	return fmt.Sprintf("want %s, not %s", want, got)
}

// goKind names the JSON type a Go type decodes, with an article.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a value of type " + t.String()
}
