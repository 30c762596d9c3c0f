package waistest

import (
	"fmt"
	"strings"
)

// LongLines is how many lines TestDocuments' long.txt has: enough to make
// it several retrieval ranges long.
const LongLines = 400

// TestDocuments is the database "test" that integration/up serves: three
// short texts (two of them about a fox) and long.txt, larger than one
// retrieval range.
func TestDocuments() []Document {
	var long strings.Builder
	for i := 1; i <= LongLines; i++ {
		fmt.Fprintf(&long, "%04d: a long document, read range by range; its words repeat line after line.\n", i)
	}
	return []Document{
		{Name: "fox.txt", Text: []byte("The quick brown fox jumps over the lazy dog.\nA fox is a small omnivore; this fox is quick.\n")},
		{Name: "hounds.txt", Text: []byte("The hounds ran all day after the fox,\nbut the fox was cleverer than the hounds.\n")},
		{Name: "garden.txt", Text: []byte("Tomatoes, beans and lettuce grow in the garden.\nNothing in it runs.\n")},
		{Name: "long.txt", Text: []byte(long.String())},
	}
}

// NewTestServer is the server of the database "test" as integration/up
// runs it; self is the name the server gives itself in document ids.
func NewTestServer(self string) *Server {
	return &Server{Database: "test", Documents: TestDocuments(), Self: self, Dir: "/srv/wais/test"}
}
