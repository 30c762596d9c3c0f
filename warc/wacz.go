package warc

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goferurl/gofer/internal/atomicfile"
)

// A WACZ (Web Archive Collection Zipped 1.1.1, Webrecorder's
// specification) is a ZIP file that holds:
//
//   - archive/NAME.warc.gz: the WARC files as they are, stored
//     uncompressed in the ZIP (STORE) so that a reader can fetch one record
//     by a range request at its index offset;
//   - indexes/index.cdx: a sorted CDXJ index of the records, the lines
//     warcio.js (and so js-wacz and ReplayWeb.page) makes: "URLKEY
//     TIMESTAMP {json}" with url, mime, status, digest, length, offset,
//     filename; past zipNumLines lines a ZipNum index instead
//     (indexes/index.cdx.gz in blocks, indexes/index.idx naming them);
//   - pages/pages.jsonl: a header line, then one page per line;
//   - datapackage.json: what the package is, and every file above with its
//     size and SHA-256;
//   - datapackage-digest.json: the SHA-256 of datapackage.json.

// WACZVersion is the version of the WACZ specification Pack writes.
const WACZVersion = "1.1.1"

// zipNumLines is the number of index lines past which the index is a ZipNum
// one, and the lines in each of its blocks (js-wacz's threshold).
var zipNumLines = 3000

// PackOptions describe a WACZ in its datapackage.json.
type PackOptions struct {
	// Title is the collection's title; "" is "WACZ".
	Title string
	// Description is a longer text (Markdown), may be "".
	Description string
	// Software names the program, "gofer 1.2.3".
	Software string
	// Created is when the package was made; zero is now.
	Created time.Time
}

// Page is one line of pages/pages.jsonl: a page a replay offers as a
// starting point.
type Page struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title,omitempty"`
}

// Resource is one file of a WACZ as datapackage.json lists it.
type Resource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
}

// Pack writes to w a WACZ of the WARC files warcs: each file as it is
// under archive/, an index of their records, the pages found in them
// (waczpages.go), and the manifest. A file whose gzip members hold many
// records (a WARC gzipped whole), which no index line can name one record
// of, is stored recompressed instead, each record its own member, as
// NAME.warc.gz. Two files of one name are an error. The
// WARC files are read twice, to index them and to copy them; neither
// holds a whole file in memory (the index lines and pages are held).
func Pack(w io.Writer, warcs []string, opt PackOptions) error {
	seen := map[string]string{}
	for _, p := range warcs {
		if isWACZ(p) {
			return fmt.Errorf("warc: pack: %s is a WACZ file: pack takes WARC files", p)
		}
		b := filepath.Base(p)
		if other, ok := seen[b]; ok {
			return fmt.Errorf("warc: pack: %s and %s have the same name", other, p)
		}
		seen[b] = p
	}
	if len(warcs) == 0 {
		return errors.New("warc: pack: no WARC files")
	}
	var lines []string
	pages := newPageList()
	warcs = slices.Clone(warcs)
	for i, p := range warcs {
		l, err := waczIndex(p, pages)
		if errors.Is(err, errSharedMembers) {
			// Stored recompressed, each record its own member, for the
			// index to name.
			tmp, terr := os.MkdirTemp("", "gofer-pack-")
			if terr != nil {
				return fmt.Errorf("warc: pack: %w", terr)
			}
			defer os.RemoveAll(tmp)
			name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".gz"), ".warc") + ".warc.gz"
			warcs[i] = filepath.Join(tmp, name)
			if rerr := rechunkFile(p, warcs[i]); rerr != nil {
				return fmt.Errorf("warc: pack: %s: %w", p, rerr)
			}
			l, err = waczIndex(warcs[i], pages)
		}
		if err != nil {
			return err
		}
		lines = append(lines, l...)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)

	created := opt.Created
	if created.IsZero() {
		created = time.Now()
	}
	created = created.UTC().Truncate(time.Second)
	zw := &waczWriter{zw: zip.NewWriter(w), modified: created}
	if len(lines) < zipNumLines {
		if err := zw.addBytes("indexes/index.cdx", []byte(strings.Join(lines, "")), zip.Deflate); err != nil {
			return err
		}
	} else if err := zw.addZipNum(lines); err != nil {
		return err
	}
	if err := zw.addBytes("pages/pages.jsonl", pages.jsonl(), zip.Deflate); err != nil {
		return err
	}
	for _, p := range warcs {
		if err := zw.addFile("archive/"+filepath.Base(p), p); err != nil {
			return err
		}
	}
	title := opt.Title
	if title == "" {
		title = "WACZ"
	}
	dp := datapackage{
		Profile:     "data-package",
		WACZVersion: WACZVersion,
		Title:       title,
		Description: opt.Description,
		Created:     created.Format(time.RFC3339),
		Software:    opt.Software,
		Resources:   zw.resources,
	}
	if main, ok := pages.main(); ok {
		dp.MainPageURL, dp.MainPageDate = main.URL, main.TS
	}
	dpj, err := json.MarshalIndent(dp, "", "  ")
	if err != nil {
		return fmt.Errorf("warc: pack: %w", err)
	}
	if err := zw.addBytes("datapackage.json", dpj, zip.Deflate); err != nil {
		return err
	}
	sum := sha256.Sum256(dpj)
	dig, _ := json.MarshalIndent(map[string]string{"path": "datapackage.json", "hash": "sha256:" + hex.EncodeToString(sum[:])}, "", "  ")
	if err := zw.addBytes("datapackage-digest.json", dig, zip.Deflate); err != nil {
		return err
	}
	if err := zw.zw.Close(); err != nil {
		return fmt.Errorf("warc: pack: %w", err)
	}
	return nil
}

// rechunkFile writes the records of src to a new file dst, each its own
// gzip member.
func rechunkFile(src, dst string) error {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = rechunk(src, bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// PackFile writes the WACZ to path, whole or not at all: it is written
// beside path under a temporary name and renamed into place.
func PackFile(path string, warcs []string, opt PackOptions) error {
	err := atomicfile.Write(path, 0o644, func(bw *bufio.Writer) error { return Pack(bw, warcs, opt) })
	if err != nil && !strings.HasPrefix(err.Error(), "warc: ") {
		err = fmt.Errorf("warc: pack: %w", err)
	}
	return err
}

type datapackage struct {
	Profile      string     `json:"profile"`
	WACZVersion  string     `json:"wacz_version"`
	Title        string     `json:"title"`
	Description  string     `json:"description,omitempty"`
	Created      string     `json:"created"`
	Software     string     `json:"software,omitempty"`
	MainPageURL  string     `json:"mainPageUrl,omitempty"`
	MainPageDate string     `json:"mainPageDate,omitempty"`
	Resources    []Resource `json:"resources"`
}

// waczWriter adds files to the ZIP and notes each as a resource.
type waczWriter struct {
	zw        *zip.Writer
	modified  time.Time
	resources []Resource
}

func (z *waczWriter) create(name string, method uint16, modified time.Time) (io.Writer, error) {
	w, err := z.zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: modified})
	if err != nil {
		return nil, fmt.Errorf("warc: pack: %s: %w", name, err)
	}
	return w, nil
}

func (z *waczWriter) note(name string, h hash.Hash, n int64) {
	z.resources = append(z.resources, Resource{Name: filepath.Base(name), Path: name,
		Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: n})
}

func (z *waczWriter) addBytes(name string, data []byte, method uint16) error {
	w, err := z.create(name, method, z.modified)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("warc: pack: %s: %w", name, err)
	}
	h := sha256.New()
	h.Write(data)
	z.note(name, h, int64(len(data)))
	return nil
}

// addFile streams the file at path into the ZIP, stored as it is.
func (z *waczWriter) addFile(name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("warc: pack: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("warc: pack: %w", err)
	}
	w, err := z.create(name, zip.Store, fi.ModTime())
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), f)
	if err != nil {
		return fmt.Errorf("warc: pack: %s: %w", path, err)
	}
	z.note(name, h, n)
	return nil
}

// addZipNum writes the sorted lines as a ZipNum index (pywb's
// "cdxj-gzip-1.0"): indexes/index.cdx.gz, blocks of zipNumLines lines each
// its own gzip member, and indexes/index.idx, one line per block naming
// its first key, where it lies and its SHA-256.
func (z *waczWriter) addZipNum(lines []string) error {
	const name = "indexes/index.cdx.gz"
	w, err := z.create(name, zip.Store, z.modified)
	if err != nil {
		return err
	}
	h := sha256.New()
	var idx strings.Builder
	idx.WriteString(`!meta 0 {"format":"cdxj-gzip-1.0","filename":"index.cdx.gz"}` + "\n")
	var off int64
	var block bytes.Buffer
	for i := 0; i < len(lines); i += zipNumLines {
		block.Reset()
		gz := gzip.NewWriter(&block)
		for _, l := range lines[i:min(i+zipNumLines, len(lines))] {
			gz.Write([]byte(l))
		}
		gz.Close()
		if _, err := w.Write(block.Bytes()); err != nil {
			return fmt.Errorf("warc: pack: %s: %w", name, err)
		}
		h.Write(block.Bytes())
		bs := sha256.Sum256(block.Bytes())
		key, rest, _ := strings.Cut(lines[i], " ")
		ts, _, _ := strings.Cut(rest, " ")
		meta, _ := json.Marshal(struct {
			Offset   int64  `json:"offset"`
			Length   int    `json:"length"`
			Digest   string `json:"digest"`
			Filename string `json:"filename"`
		}{off, block.Len(), "sha256:" + hex.EncodeToString(bs[:]), "index.cdx.gz"})
		fmt.Fprintf(&idx, "%s %s %s\n", key, ts, meta)
		off += int64(block.Len())
	}
	z.note(name, h, off)
	return z.addBytes("indexes/index.idx", []byte(idx.String()), zip.Deflate)
}
