package wais

import (
	"fmt"
	"strconv"
)

// Search parameters gofer sends, the values of the WAIS reference client
// (waissearch): the Z39.50 set-size fields 30, 5000 and 30, the "date
// independent" date factor, and at most 40 documents.
const (
	searchSmallSet      = 30
	searchLargeSet      = 5000
	searchMediumSet     = 30
	searchDateFactor    = 1
	MaxDocuments        = 40
	queryTypeRelevance  = "3" // WAIS relevance-feedback query (seed words)
	queryTypeText       = "1" // type-1 (boolean) query: text retrieval
	retrievalResultSet  = "FOO"
	elementDocumentText = "Document Text"
	retrievalReference  = "3"
)

// RangeSize is how many bytes of a document one retrieval asks for: the
// page size of the W3C WAIS client, which servers of every WAIS
// distribution answer whole.
const RangeSize = 10000

// Type-1 query attributes (Z39.50-1988 appendix B; the WAIS use values for
// chunks and data type): use, relation, position, structure, truncation,
// completeness, two letters each.
const (
	attrDocID     = "un re ig ig ig ig" // system control number = the id
	attrType      = "wt re ig ig ig ig" // data type = the wtype
	attrByteFrom  = "wb ro ig ig ig ig" // byte >= start
	attrByteUntil = "wb rl ig ig ig ig" // byte < end
	opAnd         = "a"
)

// Message returns the 25-byte header followed by body: one message as it
// goes on the wire.
func Message(body []byte) []byte {
	b := make([]byte, 0, HeaderSize+len(body))
	b = appendHeader(b, len(body))
	return append(b, body...)
}

// SearchRequest returns the body of a relevance search of database for the
// seed words: the SearchRequest APDU (query type "3") and its WAIS part
// (seed words, date factor, maximum number of documents).
func SearchRequest(database, words string, maxDocuments int) []byte {
	apdu := []byte{pduSearchRequest}
	apdu = appendInt(apdu, searchSmallSet, 3)
	apdu = appendInt(apdu, searchLargeSet, 3)
	apdu = appendInt(apdu, searchMediumSet, 3)
	apdu = append(apdu, 1) // replace indicator
	apdu = appendAny(apdu, tagResultSetName, nil)
	apdu = appendAny(apdu, tagDatabaseNames, []byte(database))
	apdu = appendAny(apdu, tagQueryType, []byte(queryTypeRelevance))

	var info []byte
	info = appendAny(info, tagSeedWords, []byte(words))
	info = appendNum(info, tagDateFactor, searchDateFactor)
	info = appendNum(info, tagMaxDocuments, int64(maxDocuments))

	body := appendInt(nil, int64(len(apdu)), 2)
	body = append(body, apdu...)
	return appendAny(body, tagUserInformation, info)
}

// RetrievalRequest returns the body of a retrieval of bytes [start, end) of
// a document: a SearchRequest with query type "1" under the element set
// "Document Text" whose query (tag 21) is the type-1 query
// id AND type AND byte >= start AND byte < end.
func RetrievalRequest(database string, id DocID, wtype string, start, end int64) []byte {
	apdu := []byte{pduSearchRequest}
	apdu = appendInt(apdu, 10, 3)
	apdu = appendInt(apdu, 16, 3)
	apdu = appendInt(apdu, 15, 3)
	apdu = append(apdu, 1)
	apdu = appendAny(apdu, tagResultSetName, []byte(retrievalResultSet))
	apdu = appendAny(apdu, tagDatabaseNames, []byte(database))
	apdu = appendAny(apdu, tagQueryType, []byte(queryTypeText))
	// One <database, element set> pair: an empty (blank) database name,
	// then 0x1F and the element set name.
	apdu = appendAny(apdu, tagElementSetNames, []byte(" \x1f"+elementDocumentText))
	apdu = appendAny(apdu, tagReferenceID, []byte(retrievalReference))

	var q []byte
	q = appendTerm(q, attrDocID, id)
	q = appendTerm(q, attrType, []byte(wtype))
	q = appendAny(q, tagOperator, []byte(opAnd))
	q = appendTerm(q, attrByteFrom, []byte(strconv.FormatInt(start, 10)))
	q = appendAny(q, tagOperator, []byte(opAnd))
	q = appendTerm(q, attrByteUntil, []byte(strconv.FormatInt(end, 10)))
	q = appendAny(q, tagOperator, []byte(opAnd))

	body := appendInt(nil, int64(len(apdu)), 2)
	body = append(body, apdu...)
	return appendAny(body, tagQuery, q)
}

func appendTerm(b []byte, attrs string, term []byte) []byte {
	b = appendAny(b, tagAttributeList, []byte(attrs))
	return appendAny(b, tagTerm, term)
}

// describeSearch is the readable one-line form of SearchRequest.
func describeSearch(database, words string) string {
	return fmt.Sprintf("SearchRequest database=%q query-type=3 seed-words=%q date-factor=%d max-documents=%d",
		database, words, searchDateFactor, MaxDocuments)
}

// describeRetrieval is the readable one-line form of RetrievalRequest.
func describeRetrieval(database, wpath, wtype string, start, end int64) string {
	return fmt.Sprintf("SearchRequest database=%q query-type=1 element-set=%q docid=%s type=%q bytes=%d-%d",
		database, elementDocumentText, wpath, wtype, start, end)
}
