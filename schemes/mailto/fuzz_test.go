package mailto

import (
	"bytes"
	"strings"
	"testing"
)

func TestQueueID(t *testing.T) {
	for reply, want := range map[string]string{
		"2.0.0 Ok: queued as 4C1D2E3F":                       "4C1D2E3F",
		"2.0.0 3a5c8e1f Message accepted for delivery":       "3a5c8e1f",
		"2.0.0 4AB1cd2e012345 Message accepted for delivery": "4AB1cd2e012345",
		"OK id=1tE2fG-000123-AB":                             "1tE2fG-000123-AB",
		"first line\n2.0.0 Ok: queued as ABC.":               "ABC",
		"Ok":                                                 "",
		"2.0.0 Ok: queued as <script>":                       "",
		"":                                                   "",
	} {
		if got := QueueID(reply); got != want {
			t.Errorf("QueueID(%q) = %q, want %q", reply, got, want)
		}
	}
}

// FuzzQueueID: any reply gives "" or one short token of safe characters.
func FuzzQueueID(f *testing.F) {
	for _, s := range []string{"2.0.0 Ok: queued as 4C1D2E3F", "OK id=1tE2fG-000123-AB", "x Message accepted", "queued as", "id=", "\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		id := QueueID(reply)
		if id != "" && !queueToken.MatchString(id) {
			t.Fatalf("QueueID(%q) = %q", reply, id)
		}
	})
}

// FuzzCopyText: the copy of any text has only CR LF line ends, no NUL, and
// says the same lines; a NUL is refused.
func FuzzCopyText(f *testing.F) {
	for _, s := range []string{"a\nb", "a\r\nb\r", "\r\r\n\n", ".\r\n", "x\x00y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var out bytes.Buffer
		err := copyText(&out, iotestHalf(text), "\r\n")
		if strings.IndexByte(text, 0) >= 0 {
			if err == nil {
				t.Fatalf("NUL accepted in %q", text)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got := out.String()
		stripped := strings.ReplaceAll(got, "\r\n", "")
		if strings.ContainsAny(stripped, "\r\n") {
			t.Fatalf("lone line end in %q from %q", got, text)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
		if strings.ReplaceAll(got, "\r\n", "\n") != want {
			t.Fatalf("lines changed: %q from %q", got, text)
		}
	})
}

// iotestHalf reads s one byte at a time, so that a CR LF pair is split
// across reads.
func iotestHalf(s string) *oneByte { return &oneByte{s: s} }

type oneByte struct{ s string }

func (r *oneByte) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, ioEOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}
