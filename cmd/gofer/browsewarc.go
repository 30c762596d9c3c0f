package main

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/replay"
	"github.com/goferurl/gofer/schemes"
)

// offlineSchemes are the schemes an archive's Fetcher answers for in
// gofer browse --warc: every scheme gofer ships, so that no URL, typed or
// followed, reaches a server or the local disk.
var offlineSchemes = []string{"gopher", "gophers", "ftp", "ftps", "http", "https", "gemini", "news", "nntp", "nntps",
	"telnet", "rlogin", "tn3270", "file", "wais", "prospero", "mailto"}

// errOffline is every dial's answer while browsing an archive.
var errOffline = errors.New("browsing an archive: no connection is opened")

// offlineDialer refuses every connection.
type offlineDialer struct{}

func (offlineDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, errOffline
}

// archiveBrowse is what gofer browse --warc browses through.
type archiveBrowse struct {
	client   *fetch.Client
	captured func(string) (time.Time, bool)
}

// archiveClient opens the archives and returns a client that answers every
// URL from them and dials nothing; an empty *start becomes the archive's
// first captured menu or listing.
func (c *cli) archiveClient(archives []string, at string, start *string) (*archiveBrowse, error) {
	opt := replay.Options{Warn: c.warnf}
	if at != "" {
		t, err := replay.ParseTime(at)
		if err != nil {
			return nil, &usageError{msg: "--at: " + err.Error()}
		}
		opt.At = t
	}
	a, err := replay.Open(archives, opt)
	if err != nil {
		return nil, err
	}
	rf := replay.NewFetcher(a)
	if *start == "" {
		if *start = rf.Root(); *start == "" {
			return nil, &usageError{msg: "--warc: the archive holds no capture to browse"}
		}
	}
	fetchers := map[string]schemes.Fetcher{}
	for _, s := range offlineSchemes {
		fetchers[s] = rf
	}
	opts := fetch.Options{
		Warn:          func(msg string) { c.warn(msg) },
		Prompt:        func(q string, secret bool) (string, error) { return c.prompt(q, secret) },
		AllowPorts:    c.allowPorts,
		RemoteCharset: c.charset,
		Dialer:        offlineDialer{},
		Fetchers:      fetchers,
	}
	return &archiveBrowse{client: fetch.NewClient(opts), captured: rf.CaptureTime}, nil
}
