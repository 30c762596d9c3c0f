package gopher

import (
	"io"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

func TestNewMenuReadsRecordedBytes(t *testing.T) {
	menu := "0About\t/about.txt\t\t\r\niHello\tfake\t(NULL)\t0\r\n1Elsewhere\t/\tother.example\t7070\r\n.\r\n"
	l := NewMenu(strings.NewReader(menu), "127.0.0.1", 7071, true, &schemes.Request{})
	var got []schemes.Entry
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != 3 {
		t.Fatalf("got %d entries, want 3: %+v", len(got), got)
	}
	if got[0].URL != "gophers://127.0.0.1:7071/0/about.txt" || got[0].Name != "About" {
		t.Errorf("first entry %q %q, want the default host over TLS", got[0].Name, got[0].URL)
	}
	if got[1].Type != schemes.TypeInfo || got[2].URL != "gopher://other.example:7070/1/" {
		t.Errorf("entries %+v %+v", got[1], got[2])
	}
}

func TestNewTextUndoesFraming(t *testing.T) {
	b, err := io.ReadAll(NewText(strings.NewReader("line one\r\n..dotted\r\n.\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "line one\r\n.dotted\r\n" {
		t.Errorf("got %q", b)
	}
	b, err = io.ReadAll(NewText(strings.NewReader("no framing\n")))
	if err != nil || string(b) != "no framing\n" {
		t.Errorf("got %q, %v; want the text as it is", b, err)
	}
}
