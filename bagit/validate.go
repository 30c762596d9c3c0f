package bagit

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Problem is one way a bag falls short of RFC 8493: the file it concerns,
// relative to the bag (slash-separated, "" for the bag itself), and what
// is wrong with it.
type Problem struct {
	Path string
	Msg  string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Msg
	}
	name := p.Path
	if strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		name = strconv.Quote(name)
	}
	return name + ": " + p.Msg
}

// Stats is what Validate found in the payload.
type Stats struct {
	Files int64 // payload files read
	Bytes int64 // their bytes
	// Algorithms are the payload manifests' algorithms, in the order of
	// Algorithms.
	Algorithms []string
	// Problems counts the problems reported.
	Problems int
}

// entry is what the payload manifests say of one path: its checksum per
// algorithm (index as in the validator's algs, "" where a manifest does
// not list it), and whether the walk of data/ met it.
type entry struct {
	sums []string
	seen bool
}

type validator struct {
	dir    string
	report func(Problem)
	st     Stats
	algs   []string // payload manifests' algorithms
	tags   []string // tag manifests' algorithms
	files  map[string]*entry
	fetch  map[string]bool
}

func (v *validator) problem(p, format string, args ...any) {
	v.st.Problems++
	v.report(Problem{Path: p, Msg: fmt.Sprintf(format, args...)})
}

// Validate checks the bag at dir as RFC 8493 section 3 says, calling
// report (in the order met: declaration, manifests, payload in lexical
// order, files missing, Payload-Oxum, tag manifests) for each problem. The
// bag is valid when report was never called. The error is for a dir that
// cannot be read at all.
func Validate(dir string, report func(Problem)) (Stats, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return Stats{}, err
	}
	if !fi.IsDir() {
		return Stats{}, fmt.Errorf("%s is not a directory", dir)
	}
	v := &validator{dir: dir, report: report, files: map[string]*entry{}, fetch: map[string]bool{}}
	if !v.declaration() {
		return v.st, nil
	}
	if fi, err := os.Stat(filepath.Join(dir, PayloadDir)); err != nil || !fi.IsDir() {
		v.problem(PayloadDir+"/", "the payload directory is missing")
	}
	v.findManifests()
	for i, alg := range v.algs {
		v.readManifest(i, alg)
	}
	v.readFetch()
	v.walkPayload()
	v.missing()
	v.oxum()
	for _, alg := range v.tags {
		v.checkTagManifest(alg)
	}
	v.st.Algorithms = v.algs
	return v.st, nil
}

var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)

// declaration checks bagit.txt; false when there is none to go on with.
func (v *validator) declaration() bool {
	b, err := os.ReadFile(filepath.Join(v.dir, DeclarationFile))
	if errors.Is(err, fs.ErrNotExist) {
		v.problem(DeclarationFile, "missing: this is not a bag")
		return false
	}
	if err != nil {
		v.problem(DeclarationFile, "%v", err)
		return false
	}
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		v.problem(DeclarationFile, "begins with a byte-order mark, which the declaration must not have")
		b = b[3:]
	}
	fields, bad := parseTags(b)
	for _, n := range bad {
		v.problem(DeclarationFile, "line %d is not \"Label: value\"", n)
	}
	want := []string{"BagIt-Version", "Tag-File-Character-Encoding"}
	if len(fields) != 2 || fields[0].Label != want[0] || fields[1].Label != want[1] {
		got := make([]string, len(fields))
		for i, f := range fields {
			got[i] = f.Label
		}
		v.problem(DeclarationFile, "must hold exactly BagIt-Version then Tag-File-Character-Encoding, holds %q", got)
	}
	for _, f := range fields {
		switch f.Label {
		case "BagIt-Version":
			if !versionRE.MatchString(f.Value) {
				v.problem(DeclarationFile, "BagIt-Version %q is not M.N", f.Value)
			}
		case "Tag-File-Character-Encoding":
			if !strings.EqualFold(f.Value, "UTF-8") {
				v.problem(DeclarationFile, "Tag-File-Character-Encoding %q: only UTF-8 tag files are read", f.Value)
			}
		}
	}
	return true
}

// Field is one labelled element of a tag file such as bag-info.txt.
type Field struct{ Label, Value string }

// parseTags reads "Label: value" lines, a line beginning with a space or
// a tab continuing the one before (RFC 8493 section 2.2.2); bad holds the
// numbers of lines in neither form.
func parseTags(b []byte) (fields []Field, bad []int) {
	for n, line := range splitLines(b) {
		if line == "" {
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && len(fields) > 0 {
			fields[len(fields)-1].Value += " " + strings.TrimSpace(line)
			continue
		}
		label, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(label) == "" || label != strings.TrimSpace(label) {
			bad = append(bad, n+1)
			continue
		}
		fields = append(fields, Field{Label: label, Value: strings.TrimSpace(value)})
	}
	return fields, bad
}

// splitLines splits at LF, CR LF or CR, the line endings RFC 8493 allows.
func splitLines(b []byte) []string {
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// findManifests finds the payload and tag manifests in the bag's top
// directory, by name.
func (v *validator) findManifests() {
	des, err := os.ReadDir(v.dir)
	if err != nil {
		v.problem("", "%v", err)
		return
	}
	for _, de := range des {
		name := de.Name()
		for _, kind := range []string{"manifest-", "tagmanifest-"} {
			alg, ok := strings.CutPrefix(name, kind)
			if !ok || !strings.HasSuffix(alg, ".txt") {
				continue
			}
			alg = strings.TrimSuffix(alg, ".txt")
			if NewHash(alg) == nil {
				v.problem(name, "algorithm %q is not one this validator knows (md5, sha1, sha256, sha512): its checksums are not checked", alg)
				continue
			}
			if kind == "manifest-" {
				v.algs = append(v.algs, alg)
			} else {
				v.tags = append(v.tags, alg)
			}
		}
	}
	order := func(a, b string) int { return slices.Index(Algorithms, a) - slices.Index(Algorithms, b) }
	slices.SortFunc(v.algs, order)
	slices.SortFunc(v.tags, order)
	if len(v.algs) == 0 {
		v.problem("", "no payload manifest (manifest-ALG.txt)")
	}
}

// manifestLines calls fn with each line of a manifest, its checksum and
// its decoded path, reporting lines in no form a manifest holds.
func (v *validator) manifestLines(name string, fn func(n int, sum, p string)) {
	f, err := os.Open(filepath.Join(v.dir, name))
	if err != nil {
		v.problem(name, "%v", err)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sc.Split(scanAnyLines)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		i := strings.IndexAny(line, " \t")
		if i <= 0 {
			v.problem(name, "line %d is not \"CHECKSUM PATH\"", n)
			continue
		}
		sum, p := line[:i], strings.TrimLeft(line[i:], " \t")
		if p == "" {
			v.problem(name, "line %d names no path", n)
			continue
		}
		if _, err := hex.DecodeString(sum); err != nil {
			v.problem(name, "line %d: checksum %q is not hexadecimal", n, sum)
			continue
		}
		fn(n, strings.ToLower(sum), DecodePath(p))
	}
	if err := sc.Err(); err != nil {
		v.problem(name, "%v", err)
	}
}

// scanAnyLines is bufio.ScanLines for LF, CR LF or CR endings.
func scanAnyLines(data []byte, atEOF bool) (int, []byte, error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // a LF may follow
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// cleanPath reports why a manifest's path cannot name a file of the bag
// ("" when it can): it must be relative, slash-separated and stay inside.
func cleanPath(p string) string {
	switch {
	case strings.HasPrefix(p, "/"):
		return "is absolute"
	case strings.Contains(p, "\\"):
		return "holds a backslash (paths are separated by '/')"
	case path.Clean(p) != p:
		return "is not in its plain form (no ., .. or empty segments)"
	case p == ".." || strings.HasPrefix(p, "../"):
		return "leads out of the bag"
	}
	return ""
}

func (v *validator) readManifest(i int, alg string) {
	name := ManifestName(alg)
	v.manifestLines(name, func(n int, sum, p string) {
		if why := cleanPath(p); why != "" {
			v.problem(name, "line %d: path %q %s", n, p, why)
			return
		}
		if !strings.HasPrefix(p, PayloadDir+"/") {
			v.problem(name, "line %d: path %q is not in the payload (data/)", n, p)
			return
		}
		if want := NewHash(alg).Size() * 2; len(sum) != want {
			v.problem(name, "line %d: checksum of %q has %d digits, %s has %d", n, p, len(sum), alg, want)
			return
		}
		e := v.files[p]
		if e == nil {
			e = &entry{sums: make([]string, len(v.algs))}
			v.files[p] = e
		}
		if e.sums[i] != "" {
			v.problem(name, "line %d: %q is listed twice", n, p)
			return
		}
		e.sums[i] = sum
	})
}

// readFetch reads fetch.txt: "URL LENGTH PATH" lines, LENGTH a number or '-'.
func (v *validator) readFetch() {
	b, err := os.ReadFile(filepath.Join(v.dir, FetchFile))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		v.problem(FetchFile, "%v", err)
		return
	}
	for n, line := range splitLines(b) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			v.problem(FetchFile, "line %d is not \"URL LENGTH PATH\"", n+1)
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil && f[1] != "-" {
			v.problem(FetchFile, "line %d: length %q is neither a number nor -", n+1, f[1])
		}
		// The path is the rest of the line after URL and LENGTH.
		rest := strings.TrimLeft(line, " \t")
		for range 2 {
			rest = strings.TrimLeft(rest[strings.IndexAny(rest, " \t"):], " \t")
		}
		p := DecodePath(rest)
		if why := cleanPath(p); why != "" || !strings.HasPrefix(p, PayloadDir+"/") {
			v.problem(FetchFile, "line %d: path %q is not a payload path", n+1, p)
			continue
		}
		if v.files[p] == nil {
			v.problem(FetchFile, "line %d: %q is in no payload manifest", n+1, p)
		}
		v.fetch[p] = true
	}
}

// walkPayload reads every file under data/, in lexical order, hashing it
// with every payload manifest's algorithm in one pass.
func (v *validator) walkPayload() {
	root := filepath.Join(v.dir, PayloadDir)
	buf := make([]byte, 256<<10)
	filepath.WalkDir(root, func(fp string, de fs.DirEntry, err error) error {
		if err != nil {
			if fp != root {
				v.problem(rel(v.dir, fp), "%v", err)
			}
			return nil
		}
		if de.IsDir() {
			return nil
		}
		p := rel(v.dir, fp)
		if !de.Type().IsRegular() {
			fi, err := os.Stat(fp)
			if err != nil || !fi.Mode().IsRegular() {
				v.problem(p, "is not a regular file")
				return nil
			}
		}
		e := v.files[p]
		if e == nil && len(v.algs) > 0 {
			for _, alg := range v.algs {
				v.problem(p, "in the payload, not in %s", ManifestName(alg))
			}
		}
		hs := make([]hash.Hash, len(v.algs))
		ws := make([]io.Writer, len(v.algs))
		for i, alg := range v.algs {
			hs[i] = NewHash(alg)
			ws[i] = hs[i]
		}
		n, err := hashFile(fp, io.MultiWriter(ws...), buf)
		if err != nil {
			v.problem(p, "%v", err)
			return nil
		}
		v.st.Files++
		v.st.Bytes += n
		if e == nil {
			return nil
		}
		e.seen = true
		for i, alg := range v.algs {
			switch got := hex.EncodeToString(hs[i].Sum(nil)); {
			case e.sums[i] == "":
				v.problem(p, "in the payload, not in %s", ManifestName(alg))
			case got != e.sums[i]:
				v.problem(p, "%s is %s, %s says %s", alg, got, ManifestName(alg), e.sums[i])
			}
		}
		return nil
	})
}

func hashFile(name string, w io.Writer, buf []byte) (int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// The file as a plain Reader: *os.File's WriteTo would copy through
	// a buffer of its own, allocated for every file.
	return io.CopyBuffer(w, struct{ io.Reader }{f}, buf)
}

func rel(dir, fp string) string {
	r, err := filepath.Rel(dir, fp)
	if err != nil {
		return fp
	}
	return filepath.ToSlash(r)
}

// missing reports the files the manifests list that the payload lacks.
func (v *validator) missing() {
	var gone []string
	for p, e := range v.files {
		if !e.seen {
			gone = append(gone, p)
		}
	}
	slices.Sort(gone)
	for _, p := range gone {
		if v.fetch[p] {
			v.problem(p, "listed in %s, not fetched: the bag is not complete", FetchFile)
			continue
		}
		for i, alg := range v.algs {
			if v.files[p].sums[i] != "" {
				v.problem(p, "listed in %s, missing from the payload", ManifestName(alg))
			}
		}
	}
}

// oxum checks bag-info.txt's Payload-Oxum, "OCTETS.FILES", when there is one.
func (v *validator) oxum() {
	b, err := os.ReadFile(filepath.Join(v.dir, BagInfoFile))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		v.problem(BagInfoFile, "%v", err)
		return
	}
	fields, bad := parseTags(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	for _, n := range bad {
		v.problem(BagInfoFile, "line %d is not \"Label: value\"", n)
	}
	for _, f := range fields {
		if !strings.EqualFold(f.Label, "Payload-Oxum") {
			continue
		}
		octets, files, ok := strings.Cut(f.Value, ".")
		o, err1 := strconv.ParseInt(octets, 10, 64)
		n, err2 := strconv.ParseInt(files, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			v.problem(BagInfoFile, "Payload-Oxum %q is not OCTETS.FILES", f.Value)
			continue
		}
		if o != v.st.Bytes || n != v.st.Files {
			v.problem(BagInfoFile, "Payload-Oxum %s, the payload holds %d.%d", f.Value, v.st.Bytes, v.st.Files)
		}
	}
}

// checkTagManifest checks one tag manifest: its files present with their
// checksums, every payload manifest among them, no tag manifest.
func (v *validator) checkTagManifest(alg string) {
	name := TagManifestName(alg)
	listed := map[string]bool{}
	buf := make([]byte, 64<<10)
	v.manifestLines(name, func(n int, sum, p string) {
		if why := cleanPath(p); why != "" {
			v.problem(name, "line %d: path %q %s", n, p, why)
			return
		}
		if strings.HasPrefix(p, PayloadDir+"/") {
			v.problem(name, "line %d: %q is a payload file, not a tag file", n, p)
			return
		}
		if strings.HasPrefix(p, "tagmanifest-") && !strings.Contains(p, "/") {
			v.problem(name, "line %d: lists the tag manifest %q, which tag manifests must not", n, p)
			return
		}
		if listed[p] {
			v.problem(name, "line %d: %q is listed twice", n, p)
			return
		}
		listed[p] = true
		h := NewHash(alg)
		if _, err := hashFile(filepath.Join(v.dir, filepath.FromSlash(p)), h, buf); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				v.problem(p, "listed in %s, missing", name)
			} else {
				v.problem(p, "%v", err)
			}
			return
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != sum {
			v.problem(p, "%s is %s, %s says %s", alg, got, name, sum)
		}
	})
	for _, a := range v.algs {
		if !listed[ManifestName(a)] {
			v.problem(name, "does not list the payload manifest %s", ManifestName(a))
		}
	}
}
