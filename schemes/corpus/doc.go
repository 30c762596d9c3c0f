// Package corpus holds no code: its test checks testdata/urls/seeds.json, every
// URL example of RFC 1738, RFC 1630 and draft-ietf-uri-url-03, against the
// planners of the scheme packages, so the protocol lines gofer parse shows
// for the seed examples are the ones the documents prescribe.
package corpus
