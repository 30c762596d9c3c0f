package browse

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// bookmarksFile is where bookmarks are kept: one a line, URL TAB title.
func (b *Browser) bookmarksFile() (string, error) {
	dir := b.cfg.ConfigDir
	if dir == "" {
		base, err := os.UserConfigDir() // $XDG_CONFIG_HOME, else ~/.config
		if err != nil {
			return "", err
		}
		dir = filepath.Join(base, "gofer")
	}
	return filepath.Join(dir, "bookmarks"), nil
}

// addBookmark bookmarks the selected item of a listing, else the page.
func (b *Browser) addBookmark() {
	var url, title string
	if e, ok := b.selectedEntry(); ok && e.URL != "" {
		url, title = e.URL, e.Name
	} else if b.cur != nil && b.cur.req.URL != "" {
		url, title = b.cur.req.URL, b.cur.title
	}
	if url == "" {
		b.setStatus("nothing to bookmark here")
		return
	}
	path, err := b.bookmarksFile()
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	var f *os.File
	if err == nil {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	if err == nil {
		title = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, title)
		_, err = fmt.Fprintf(f, "%s\t%s\n", url, title)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		b.showError(fmt.Errorf("bookmark: %w", err))
		return
	}
	b.setStatus("bookmarked " + clean(title) + " (v shows the bookmarks)")
}

// readBookmarks reads the bookmarks as entries; a missing file is none.
func (b *Browser) readBookmarks() ([]schemes.Entry, error) {
	path, err := b.bookmarksFile()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []schemes.Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		url, title, _ := strings.Cut(sc.Text(), "\t")
		if url == "" {
			continue
		}
		if title == "" {
			title = url
		}
		e, err := entryFor(url, title)
		if err != nil {
			e = schemes.Entry{Name: title + " (" + err.Error() + ")", Type: schemes.TypeError, Size: -1}
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// viewBookmarks shows the bookmarks as a listing.
func (b *Browser) viewBookmarks() {
	es, err := b.readBookmarks()
	if err != nil {
		b.showError(err)
		return
	}
	if len(es) == 0 {
		es = []schemes.Entry{{Name: "No bookmarks yet: a adds the item under the cursor.", Type: schemes.TypeInfo, Size: -1}}
	}
	b.push(&page{title: "Bookmarks", kind: kindListing, entries: es, match: -1})
}
