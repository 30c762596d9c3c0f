package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

func (c *cli) parseCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "parse [--json] URL",
		Short: "Show a URL's parts and the exact requests a fetch would send (no network)",
		Example: `  gofer parse 'ftp://myname@host.dom/%2Fetc/motd'
  gofer parse --json 'gopher://gopher.example.org/0README%09%09+'`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{msg: "parse takes exactly one URL"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			client, err := c.client()
			if err != nil {
				return err
			}
			defer client.Close()
			req := &fetch.Request{URL: args[0], Call: schemes.Call{Query: c.query, HasQuery: cmd.Flags().Changed("query"), Form: c.forms}}
			req.News = c.newsPart()
			plan, err := client.Plan(req)
			if err != nil {
				return err
			}
			b, err := json.Marshal(plan)
			if err != nil {
				return err
			}
			if c.json {
				var out bytes.Buffer
				json.Indent(&out, b, "", "  ")
				out.WriteByte('\n')
				_, err = c.stdout.Write(out.Bytes())
				return err
			}
			return writePlanText(c.stdout, b)
		},
	}
	// What the request lines depend on: the URL's names and ports, the
	// logins, and each protocol's settings that change what it would send.
	c.addFlags(cmd, []string{groupGopher, groupNews}, "json", "remote-charset", "allow-port", "netrc", "netrc-file",
		"ssl-reqd", "email", "ftp-ssl", "from", "smtp-server", "smtp-user", "gemini-verify")
	return cmd
}

// writePlanText prints the parse object readably: the URL's parts first,
// then each request line with its control characters made visible.
func writePlanText(w io.Writer, planJSON []byte) error {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(planJSON))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return err
	}
	first := []string{"url", "scheme", "host", "port", "user", "password"}
	last := map[string]bool{"requests": true, "notes": true, "warnings": true, "raw_requests": true, "raw_segments": true}
	// Bytes that are not UTF-8 come back from the raw_ fields: segments
	// percent-encoded as in the URL, request lines as sent, with such
	// bytes shown as \xHH (visibleLine).
	if raw, ok := m["raw_segments"]; ok {
		m["segments"] = raw
	}
	if raw, ok := m["raw_requests"].([]any); ok {
		for i, r := range raw {
			s, _ := r.(string)
			if b, err := schemes.Unescape(s); err == nil {
				raw[i] = b
			}
		}
		m["requests"] = raw
	}
	var rest []string
	for k := range m {
		if !last[k] && !contains(first, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	notes, _ := m["notes"].(map[string]any)
	noteKeys := make([]string, 0, len(notes))
	for k := range notes {
		noteKeys = append(noteKeys, k)
	}
	sort.Strings(noteKeys)
	width := len("requests:")
	for _, k := range append(append(rest, first...), noteKeys...) {
		width = max(width, len(k)+1)
	}
	for _, k := range append(first, rest...) {
		v, ok := m[k]
		if !ok || v == nil || v == "" {
			continue
		}
		fmt.Fprintf(w, "%-*s %s\n", width, k+":", plainValue(v))
	}
	for _, k := range noteKeys {
		fmt.Fprintf(w, "%-*s %s\n", width, k+":", plainValue(notes[k]))
	}
	if reqs, ok := m["requests"].([]any); ok {
		fmt.Fprintln(w, "requests:")
		for _, r := range reqs {
			s, _ := r.(string)
			fmt.Fprintf(w, "  %s\n", visibleLine(s))
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func plainValue(v any) string {
	switch v := v.(type) {
	case string:
		return visibleLine(v)
	case json.Number:
		return v.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// visibleLine shows a request line as sent, with TAB, CR, LF and other
// control bytes written as escapes so that nothing is hidden.
func visibleLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\t':
			b.WriteString(`\t`)
		case ch == '\r':
			b.WriteString(`\r`)
		case ch == '\n':
			b.WriteString(`\n`)
		case ch < 0x20 || ch == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, ch)
		case ch >= 0x80:
			// A byte of a UTF-8 character passes; one that is not
			// UTF-8 (a Latin-1 name's) is shown, not replaced.
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
				b.WriteString(s[i : i+size])
				i += size - 1
			} else {
				fmt.Fprintf(&b, `\x%02x`, ch)
			}
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}
