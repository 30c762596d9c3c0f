package http

import (
	"fmt"
	"io"
	nethttp "net/http"
	"sort"
)

// transcriptRequest writes the request head gofer sets ("> " lines). HTTP
// URLs carry no password, so nothing needs masking.
func transcriptRequest(w io.Writer, r *nethttp.Request) {
	if w == nil {
		return
	}
	fmt.Fprintf(w, "> GET %s HTTP/1.1\n> Host: %s\n", r.URL.RequestURI(), r.URL.Host)
	writeHeader(w, "> ", r.Header)
}

// transcriptResponse writes the status line and headers ("< " lines).
func transcriptResponse(w io.Writer, r *nethttp.Response) {
	if w == nil {
		return
	}
	fmt.Fprintf(w, "< %s %s\n", r.Proto, r.Status)
	writeHeader(w, "< ", r.Header)
}

func writeHeader(w io.Writer, prefix string, h nethttp.Header) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(w, "%s%s: %s\n", prefix, k, v)
		}
	}
}
