package dial

import (
	"reflect"
	"testing"
	"time"
)

// Key tells Dialers apart by every field: two with the same settings have
// the same Key, and a change to any one field changes it (a field added
// to Dialer and left out of Key fails here).
func TestKeyCoversEveryField(t *testing.T) {
	if (&Dialer{}).Key() != (&Dialer{}).Key() {
		t.Fatal("two zero Dialers have different Keys")
	}
	base := (&Dialer{}).Key()
	typ := reflect.TypeOf(Dialer{})
	for i := range typ.NumField() {
		var d Dialer
		f := reflect.ValueOf(&d).Elem().Field(i)
		switch f.Kind() {
		case reflect.Int64:
			f.SetInt(int64(time.Second))
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Func:
			f.Set(reflect.ValueOf(func(string) string { return "" }))
		default:
			t.Fatalf("field %s of kind %s: teach this test and Key about it", typ.Field(i).Name, f.Kind())
		}
		if d.Key() == base {
			t.Errorf("a Dialer whose %s differs has the zero Dialer's Key", typ.Field(i).Name)
		}
	}
	// A Dialer with its own Getenv is only equal to itself.
	d := &Dialer{Getenv: func(string) string { return "" }}
	if d.Key() != d.Key() || d.Key() == (&Dialer{Getenv: d.Getenv}).Key() {
		t.Error("a Dialer with a Getenv is keyed by anything but its identity")
	}
}
