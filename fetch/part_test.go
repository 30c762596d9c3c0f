package fetch

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

func readOrNone(t *testing.T, path string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A download cut short left NAME.part; the next one, through a client,
// asks from its end, continues it, and NAME appears only when whole.
func TestPartResumesThroughClient(t *testing.T) {
	dir := t.TempDir()
	whole := strings.Repeat("0123456789abcdef", 4000)
	src := filepath.Join(dir, "src.txt")
	write(t, src, whole)
	name := filepath.Join(dir, "out.txt")
	write(t, name+PartSuffix, whole[:12345])

	p, err := OpenPart(name, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Offset != 12345 {
		t.Fatalf("Offset %d, want 12345", p.Offset)
	}
	c := NewClient(Options{})
	defer c.Close()
	resp, err := c.Do(context.Background(), &Request{URL: "file://" + src, Call: schemes.Call{Offset: p.Offset}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if err := p.Start(resp.Offset); err != nil {
		t.Fatal(err)
	}
	if !p.Resumed() {
		t.Fatalf("Start(%d) did not continue the partial file", resp.Offset)
	}
	if _, err := io.Copy(p, resp.Body); err != nil {
		t.Fatal(err)
	}
	if _, ok := readOrNone(t, name); ok {
		t.Fatal("NAME exists before Commit")
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := readOrNone(t, name); got != whole {
		t.Fatalf("resumed file: %d bytes, want %d", len(got), len(whole))
	}
	if _, ok := readOrNone(t, name+PartSuffix); ok {
		t.Error("NAME.part left after Commit")
	}
}

// A file already at NAME is taken as the first bytes, as curl -C takes
// it: it moves to NAME.part, so that NAME never holds a partial file.
func TestPartTakesFileAtNameAsPartial(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	write(t, name, "abc")
	p, err := OpenPart(name, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Offset != 3 {
		t.Fatalf("Offset %d, want 3", p.Offset)
	}
	if _, ok := readOrNone(t, name); ok {
		t.Error("the partial file is still under NAME")
	}
	if got, _ := readOrNone(t, p.Path()); got != "abc" {
		t.Errorf("NAME.part holds %q", got)
	}
	if err := p.Start(3); err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "def")
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := readOrNone(t, name); got != "abcdef" {
		t.Errorf("NAME holds %q", got)
	}
}

// Without resume, and when the server starts over, nothing old is kept:
// a file already at NAME stays as it was until the new one is whole.
func TestPartRenamesOnlyWhenWhole(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	write(t, name, "old file")
	write(t, name+PartSuffix, "stale part")
	p, err := OpenPart(name, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Offset != 0 {
		t.Fatalf("Offset %d without resume", p.Offset)
	}
	if err := p.Start(0); err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "new")
	if got, _ := readOrNone(t, name); got != "old file" {
		t.Fatalf("NAME holds %q before Commit", got)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := readOrNone(t, name); got != "new" {
		t.Errorf("NAME holds %q, want the new file alone", got)
	}
}

// A resumed request the server answered from the start rewrites the part.
func TestPartStartsOverAtZero(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	write(t, name+PartSuffix, "stale bytes")
	p, err := OpenPart(name, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(0); err != nil {
		t.Fatal(err)
	}
	if p.Resumed() {
		t.Error("Resumed after Start(0)")
	}
	io.WriteString(p, "fresh")
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := readOrNone(t, name); got != "fresh" {
		t.Errorf("NAME holds %q", got)
	}
}

// A failed transfer leaves nothing under NAME: the part stays for a
// resume, or goes; NAME keeps what it held.
func TestPartAbortLeavesNameAlone(t *testing.T) {
	for _, keep := range []bool{true, false} {
		name := filepath.Join(t.TempDir(), "f")
		write(t, name, "old file")
		p, err := OpenPart(name, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(0); err != nil {
			t.Fatal(err)
		}
		io.WriteString(p, "half")
		if err := p.Abort(keep); err != nil {
			t.Fatal(err)
		}
		if got, _ := readOrNone(t, name); got != "old file" {
			t.Errorf("keep %v: NAME holds %q after a failure", keep, got)
		}
		got, ok := readOrNone(t, p.Path())
		if keep && got != "half" {
			t.Errorf("kept part holds %q, %v", got, ok)
		}
		if !keep && ok {
			t.Errorf("part %q left after Abort(false)", got)
		}
	}
	// A name that was never there is not made by a failure.
	name := filepath.Join(t.TempDir(), "new")
	p, _ := OpenPart(name, true)
	if err := p.Start(0); err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "half")
	p.Abort(true)
	if _, ok := readOrNone(t, name); ok {
		t.Error("NAME made by a failed transfer")
	}
}

func TestPartRefusesAnotherOffset(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	write(t, name+PartSuffix, "abc")
	p, err := OpenPart(name, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(2); !errors.Is(err, schemes.ErrUsage) {
		t.Fatalf("Start(2) after a 3-byte part: %v", err)
	}
	if got, _ := readOrNone(t, p.Path()); got != "abc" {
		t.Errorf("part changed to %q", got)
	}
}

// splicingBody is a body that writes itself out the way an FTP body does:
// straight into a writer that reads from a reader itself (splice into a
// file), else through a buffer; it records which way it took.
type splicingBody struct {
	r           io.Reader
	sawReadFrom bool
}

func (b *splicingBody) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *splicingBody) WriteTo(w io.Writer) (int64, error) {
	if rf, ok := w.(io.ReaderFrom); ok {
		b.sawReadFrom = true
		return rf.ReadFrom(b.r)
	}
	return io.Copy(w, struct{ io.Reader }{b.r})
}

// A Part lets a body move its bytes straight into the file (an FTP body's
// splice), as the file itself would: copying into it is no detour through
// a buffer.
func TestPartTakesBodiesStraightIntoTheFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	p, err := OpenPart(name, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(0); err != nil {
		t.Fatal(err)
	}
	body := &splicingBody{r: strings.NewReader("the whole file")}
	if _, err := io.Copy(p, body); err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(name); err != nil || string(b) != "the whole file" || !body.sawReadFrom {
		t.Errorf("file %q (%v); the body saw a reader-from: %v", b, err, body.sawReadFrom)
	}
}
