package waistest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
)

// Document is one document of the served database.
type Document struct {
	Name string // file name, e.g. "fox.txt"
	Text []byte
}

// Server answers WAIS searches and retrievals for one database, as
// freeWAIS-sf's waisserver does.
type Server struct {
	// Database is the database's name ("test").
	Database string
	// Documents are its documents.
	Documents []Document
	// Self is how the server names itself in document ids ("host:port"),
	// which is not the address a client dials.
	Self string
	// Dir is the directory the documents are said to live in.
	Dir string
	// Log, if set, receives one line per request.
	Log func(string)

	mu    sync.Mutex
	conns map[net.Conn]bool
	ln    net.Listener
}

// Date is the date written into every document header (freeWAIS writes
// the file's date as YYMMDD).
const Date = "941220"

// Serve accepts connections on l until it is closed, each served on its
// own goroutine; it returns nil once Close has been called.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	s.ln = l
	s.mu.Unlock()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		s.mu.Lock()
		if s.conns == nil {
			s.conns = map[net.Conn]bool{}
		}
		s.conns[c] = true
		s.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.ServeConn(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// Close stops Serve and ends every connection.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.Close()
	}
	if s.ln != nil {
		return s.ln.Close()
	}
	return nil
}

// ServeConn answers requests on c until the client closes it (the server,
// like freeWAIS, needs no InitRequest and keeps the connection for further
// requests), then closes c.
func (s *Server) ServeConn(c net.Conn) {
	defer c.Close()
	for {
		q, err := ReadRequest(c)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.logf("%s: %v", c.RemoteAddr(), err)
			}
			return
		}
		if _, err := c.Write(s.Answer(q)); err != nil {
			return
		}
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log(fmt.Sprintf(format, args...))
	}
}

// Answer is the message answering q.
func (s *Server) Answer(q *Request) []byte {
	if q.Database != s.Database {
		s.logf("unknown database %q", q.Database)
		return DiagnosticAnswer("S1", "The following database is not available: "+q.Database, q.ReferenceID)
	}
	if q.QueryType == "1" {
		s.logf("retrieve %q bytes %d-%d", q.DocID, q.Start, q.End)
		text, ok := s.text(q.DocID)
		if !ok {
			return DiagnosticAnswer("S1", "Document not found in database "+s.Database, q.ReferenceID)
		}
		start, end := min(q.Start, int64(len(text))), min(q.End, int64(len(text)))
		return TextAnswer(q.DocID, text[start:end], q.ReferenceID)
	}
	s.logf("search %q for %q", s.Database, q.Words)
	hits := s.search(q.Words, q.MaxDocs)
	if len(hits) == 0 {
		cat := s.Catalogue()
		hits = []Hit{{DocID: s.docID(s.Database+".cat", len(cat)), Score: 0, Length: int64(len(cat)),
			Lines: int64(strings.Count(string(cat), "\n")), Type: "TEXT", Source: s.Database, Date: Date,
			Headline: "Search produced no result. Here's the Catalog for database: " + s.Database}}
	}
	return SearchAnswer(hits, q.ReferenceID)
}

func (s *Server) docID(file string, size int) []byte {
	return DocID(s.Self, s.Dir+"/"+s.Database, fmt.Sprintf("0 %d %s/%s", size, s.Dir, file))
}

// DocID is the id of the i-th document.
func (s *Server) DocID(i int) []byte {
	d := s.Documents[i]
	return s.docID(d.Name, len(d.Text))
}

// text finds the document (or the catalogue) an id names.
func (s *Server) text(id []byte) ([]byte, bool) {
	for i, d := range s.Documents {
		if string(s.DocID(i)) == string(id) {
			return d.Text, true
		}
	}
	cat := s.Catalogue()
	if string(s.docID(s.Database+".cat", len(cat))) == string(id) {
		return cat, true
	}
	return nil, false
}

// search scores each document by how often the words occur in it
// (case-insensitive, whole words), best first, the best scoring 1000.
func (s *Server) search(words string, max int64) []Hit {
	terms := strings.Fields(strings.ToLower(words))
	if len(terms) == 0 {
		return nil
	}
	type scored struct {
		i, n int
	}
	var found []scored
	for i, d := range s.Documents {
		n := 0
		for _, w := range strings.FieldsFunc(strings.ToLower(string(d.Text)), notWord) {
			for _, t := range terms {
				if w == t {
					n++
				}
			}
		}
		if n > 0 {
			found = append(found, scored{i, n})
		}
	}
	sort.SliceStable(found, func(a, b int) bool { return found[a].n > found[b].n })
	if max > 0 && int64(len(found)) > max {
		found = found[:max]
	}
	hits := make([]Hit, len(found))
	for k, f := range found {
		d := s.Documents[f.i]
		hits[k] = Hit{DocID: s.DocID(f.i), Score: int64(1000 * f.n / found[0].n), Length: int64(len(d.Text)),
			Lines: int64(strings.Count(string(d.Text), "\n")), Type: "TEXT", Source: s.Database, Date: Date,
			Headline: d.Name + " " + s.Dir + "/"}
	}
	return hits
}

func notWord(r rune) bool {
	return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '\'')
}

// Catalogue is the database's catalogue, the text a freeWAIS server keeps
// beside its index (DATABASE.cat): one paragraph per document.
func (s *Server) Catalogue() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "Catalog for database: %s\n%d total documents\n", s.Database, len(s.Documents))
	for i, d := range s.Documents {
		fmt.Fprintf(&b, "\nDocument # %d\nHeadline: %s %s/\nDocID: 0 %d %s/%s\n", i+1, d.Name, s.Dir, len(d.Text), s.Dir, d.Name)
	}
	return []byte(b.String())
}
