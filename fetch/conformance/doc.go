// Package conformance is the suite every scheme gofer ships must pass, and
// any scheme a program registers can: Run(t, scheme, adapter), called
// from a test, the way every backend of a storage library passes one
// shared suite. A program gives its own fetcher as Adapter.Fetcher (an
// "x-" scheme: see the example).
//
// Each registered scheme has an adapter (one file of this package's tests
// per scheme family): a scripted server for that scheme, and the URLs on it
// of a small object, a missing object, a listing, an object larger than the
// size limit, a server that stalls, a server that closes in the middle of a
// transfer, and an object whose tail the server holds back until the test
// lets it go. The same checks then run against every scheme, in parallel,
// through the front door (fetch.Client), as a program using the library
// would, and against the scheme's Fetcher itself:
//
//   - Do returns a Response exactly when it returns no error, and
//     Response.Body is never nil, whatever the kind;
//   - the body streams: its first bytes arrive while the server still holds
//     back the rest;
//   - Close is idempotent; once the response and the client are closed the
//     server sees every connection end, and no goroutine outlives the fetch;
//   - cancelling the context ends the fetch, before or after the response,
//     with schemes.ErrInterrupted; a stalled server ends it with
//     schemes.ErrTimeout within about the idle timeout;
//   - Options.MaxBytes holds: no more bytes than the limit are delivered and
//     the fetch ends with schemes.ErrTooLarge;
//   - a server that closes mid-transfer ends it with schemes.ErrInterrupted;
//   - a listing yields well-formed entries to its clean end, as many as
//     the adapter says it holds, and its text form names every one;
//   - the Fetcher called directly, with no Client, keeps the same contract;
//   - Client.Plan dials nothing;
//   - every error matches one of the error kinds, and no password of the URL
//     appears in any error text.
//
// This package's TestConformance runs it on every scheme fetch.NewClient
// registers and fails for one that has no adapter, so a scheme is
// registered only if it passes. TestPlantedBugs runs it on fetchers that
// each carry one bug (a listing cut after its first entry, a body one byte
// short, a connection or a goroutine left behind, a cancel ignored) and
// shows each one failed. The suite needs no real server and runs in plain
// `go test ./...`.
package conformance
