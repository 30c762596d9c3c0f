// Command nntppost posts gofer's test articles to the integration news
// server through NNTP POST, so the posting path is real, and records the
// exact bytes: what was posted (posted/NAME.txt) and the article as the
// server then returns it to ARTICLE (served/NAME.txt), both with CRLF line
// ends and without dot-stuffing, plus index.tsv (group, number,
// message-id, subject). Articles already on the server (by message-id) are
// not posted again, so running it twice is harmless.
//
// Usage:
//
//	nntppost -server 127.0.0.119:119 -user reader -password reader-secret -out /tmp/gofer-it/news
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type article struct {
	Group, ID, Subject string
	Auth               bool // posted and read after AUTHINFO
	Posted             []byte
}

// name is the file name for an article: its message-id's local part.
func (a *article) name() string {
	return strings.TrimPrefix(strings.SplitN(a.ID, "@", 2)[0], "<")
}

func articles() []*article {
	var as []*article
	add := func(group, id, subject string, auth bool, date time.Time, body []string) {
		var b bytes.Buffer
		fmt.Fprintf(&b, "From: Gofer Tester <tester@gofer.test>\r\n")
		fmt.Fprintf(&b, "Newsgroups: %s\r\n", group)
		fmt.Fprintf(&b, "Subject: %s\r\n", subject)
		fmt.Fprintf(&b, "Date: %s\r\n", date.Format("Mon, 02 Jan 2006 15:04:05 -0700"))
		fmt.Fprintf(&b, "Message-ID: %s\r\n", id)
		fmt.Fprintf(&b, "Organization: gofer integration\r\n")
		b.WriteString("\r\n")
		for _, l := range body {
			b.WriteString(l + "\r\n")
		}
		as = append(as, &article{Group: group, ID: id, Subject: subject, Auth: auth, Posted: b.Bytes()})
	}
	base := time.Date(1994, time.December, 20, 12, 0, 0, 0, time.UTC)
	for n := 1; n <= 30; n++ {
		body := []string{
			fmt.Sprintf("This is test article %d of 30 in gofer.test.", n),
			"",
			"It was posted through NNTP POST by gofer's integration harness.",
		}
		if n == 13 {
			// Lines that begin with '.': stuffed on the wire both ways.
			body = []string{
				"Article 13 has lines that begin with a dot:",
				".",
				"..",
				".leading dot",
				"...",
				"and a last line.",
			}
		}
		add("gofer.test", fmt.Sprintf("<gofer-test-%d@gofer.test>", n), fmt.Sprintf("Test article %d", n),
			false, base.Add(time.Duration(n)*time.Minute), body)
	}
	for n := 1; n <= 3; n++ {
		add("gofer.secret", fmt.Sprintf("<gofer-secret-%d@gofer.test>", n), fmt.Sprintf("Secret article %d", n),
			true, base.Add(time.Hour+time.Duration(n)*time.Minute),
			[]string{fmt.Sprintf("Secret article %d: only readers who sent AUTHINFO see it.", n)})
	}
	return as
}

func main() {
	server := flag.String("server", "127.0.0.119:119", "NNTP server host:port")
	user := flag.String("user", "reader", "AUTHINFO user for the authenticated group")
	password := flag.String("password", "reader-secret", "AUTHINFO password")
	out := flag.String("out", "/tmp/gofer-it/news", "where to write posted/, served/ and index.tsv")
	flag.Parse()
	if err := run(*server, *user, *password, *out); err != nil {
		fmt.Fprintln(os.Stderr, "nntppost:", err)
		os.Exit(1)
	}
}

func run(server, user, password, out string) error {
	as := articles()
	for _, dir := range []string{"posted", "served"} {
		if err := os.MkdirAll(filepath.Join(out, dir), 0o755); err != nil {
			return err
		}
	}
	for _, auth := range []bool{false, true} {
		c, err := session(server, user, password, auth)
		if err != nil {
			return err
		}
		for _, a := range as {
			if a.Auth != auth {
				continue
			}
			if err := c.ensurePosted(a); err != nil {
				c.close()
				return fmt.Errorf("%s: %w", a.ID, err)
			}
			if err := writeFile(filepath.Join(out, "posted", a.name()+".txt"), a.Posted); err != nil {
				c.close()
				return err
			}
		}
		c.close()
	}

	// Read everything back on fresh connections, once posting is done.
	var index bytes.Buffer
	index.WriteString("# group\tnumber\tmessage-id\tsubject\n")
	for _, auth := range []bool{false, true} {
		c, err := session(server, user, password, auth)
		if err != nil {
			return err
		}
		for _, a := range as {
			if a.Auth != auth {
				continue
			}
			num, body, err := c.article(a)
			if err != nil {
				c.close()
				return fmt.Errorf("reading back %s: %w", a.ID, err)
			}
			if err := writeFile(filepath.Join(out, "served", a.name()+".txt"), body); err != nil {
				c.close()
				return err
			}
			fmt.Fprintf(&index, "%s\t%d\t%s\t%s\n", a.Group, num, a.ID, a.Subject)
		}
		c.close()
	}
	return writeFile(filepath.Join(out, "index.tsv"), index.Bytes())
}

// writeFile replaces path with data in one rename, so tests reading the
// files while the harness runs again never see them half written.
// session connects to server, logged in as user when auth is set.
func session(server, user, password string, auth bool) (*conn, error) {
	c, err := dial(server)
	if err != nil || !auth {
		return c, err
	}
	if err := c.authinfo(user, password); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func writeFile(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

type conn struct {
	nc net.Conn
	r  *bufio.Reader
}

func dial(server string) (*conn, error) {
	nc, err := net.DialTimeout("tcp", server, 10*time.Second)
	if err != nil {
		return nil, err
	}
	c := &conn{nc: nc, r: bufio.NewReader(nc)}
	code, line, err := c.reply()
	if err != nil {
		nc.Close()
		return nil, err
	}
	if code != 200 && code != 201 {
		nc.Close()
		return nil, fmt.Errorf("greeting: %s", line)
	}
	return c, nil
}

func (c *conn) close() {
	c.cmd("QUIT")
	c.nc.Close()
}

func (c *conn) reply() (int, string, error) {
	c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := c.r.ReadString('\n')
	if err != nil {
		return 0, "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if len(line) < 3 {
		return 0, line, fmt.Errorf("short reply %q", line)
	}
	code, err := strconv.Atoi(line[:3])
	if err != nil {
		return 0, line, fmt.Errorf("bad reply %q", line)
	}
	return code, line, nil
}

func (c *conn) cmd(format string, args ...any) (int, string, error) {
	c.nc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(c.nc, format+"\r\n", args...); err != nil {
		return 0, "", err
	}
	return c.reply()
}

func (c *conn) authinfo(user, password string) error {
	code, line, err := c.cmd("AUTHINFO USER %s", user)
	if err != nil {
		return err
	}
	if code == 381 {
		code, line, err = c.cmd("AUTHINFO PASS %s", password)
		if err != nil {
			return err
		}
	}
	if code != 281 {
		return fmt.Errorf("AUTHINFO: %s", line)
	}
	return nil
}

func (c *conn) ensurePosted(a *article) error {
	code, line, err := c.cmd("STAT %s", a.ID)
	if err != nil {
		return err
	}
	if code == 223 {
		return nil
	}
	if code != 430 {
		return fmt.Errorf("STAT: %s", line)
	}
	code, line, err = c.cmd("POST")
	if err != nil {
		return err
	}
	if code != 340 {
		return fmt.Errorf("POST: %s", line)
	}
	var w bytes.Buffer
	for _, l := range bytes.SplitAfter(a.Posted, []byte("\r\n")) {
		if len(l) == 0 {
			continue
		}
		if l[0] == '.' {
			w.WriteByte('.')
		}
		w.Write(l)
	}
	w.WriteString(".\r\n")
	c.nc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.nc.Write(w.Bytes()); err != nil {
		return err
	}
	code, line, err = c.reply()
	if err != nil {
		return err
	}
	if code != 240 {
		return fmt.Errorf("posting: %s", line)
	}
	return nil
}

// article fetches a by message-id and returns its number in its group and
// its bytes, unstuffed, with the line ends the server sent.
func (c *conn) article(a *article) (int, []byte, error) {
	code, line, err := c.cmd("ARTICLE %s", a.ID)
	if err != nil {
		return 0, nil, err
	}
	if code != 220 {
		return 0, nil, fmt.Errorf("ARTICLE: %s", line)
	}
	var body bytes.Buffer
	for {
		l, err := c.r.ReadBytes('\n')
		if err != nil {
			return 0, nil, err
		}
		if string(l) == ".\r\n" {
			break
		}
		if l[0] == '.' {
			l = l[1:]
		}
		body.Write(l)
	}
	// The number comes from the Xref header (storeonxref), "host group:N".
	num := 0
	for _, h := range strings.Split(body.String(), "\r\n") {
		if h == "" {
			break
		}
		if v, ok := strings.CutPrefix(h, "Xref: "); ok {
			for _, f := range strings.Fields(v)[1:] {
				if g, n, ok := strings.Cut(f, ":"); ok && g == a.Group {
					num, _ = strconv.Atoi(n)
				}
			}
		}
	}
	if num == 0 {
		return 0, nil, errors.New("no Xref number for " + a.Group)
	}
	return num, body.Bytes(), nil
}
