package main

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/store"
)

// TestImportTakesEveryDecisionField checks that an import takes the decisions the engine
// writes with every field set, of both forms (reminder and instruction): the store checks
// them against its own copy of the engine's form (store/importcheck.go, which refuses
// unknown fields), and a field the engine adds to Decision or to its predicate trace must
// be added there too, or every export with it set would be refused. The fields are set by
// reflection, so a new one is covered without changing this test.
func TestImportTakesEveryDecisionField(t *testing.T) {
	b, err := os.ReadFile(impGood)
	if err != nil {
		t.Fatal(err)
	}
	var d engine.Decision
	fillAll(t, reflect.ValueOf(&d).Elem(), nil)
	for _, source := range []string{engine.SourceReminder, engine.SourceInstruction} {
		d.Source = source
		decisions, err := json.Marshal([]engine.Decision{d}) // as turn records and traces write them
		if err != nil {
			t.Fatal(err)
		}
		e, err := store.DecodeExport(b)
		if err != nil {
			t.Fatal(err)
		}
		e.Turns[0].Decisions = decisions
		if err := store.CheckExport(&e); err != nil {
			t.Errorf("%s decision %s: %v", source, decisions, err)
		}
	}
}

// fillAll sets every field of the struct v, exported or not, and of the structs it holds,
// to a value that is not zero: strings "x", numbers 1, true, slices of one element. A
// struct within one of its own type (the children of a predicate trace) is left zero. A
// field of a kind it does not know fails the test: add the kind.
func fillAll(tb testing.TB, v reflect.Value, outer []reflect.Type) {
	tb.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillAll(tb, v.Index(0), outer)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(tb, v.Elem(), outer)
	case reflect.Struct:
		if slices.Contains(outer, v.Type()) {
			return
		}
		for i := range v.NumField() {
			f := v.Field(i)
			// Unexported fields too (a decision's latches are written): through their address.
			fillAll(tb, reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), append(outer, v.Type()))
		}
	default:
		tb.Fatalf("fillAll: a field of type %s: add its kind", v.Type())
	}
}
