package mirror

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/bagit"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// A mirror kept as a BagIt bag (Options.Bag, RFC 8493) holds its tree as
// the bag's payload, DIR/data/, and the state where it always is,
// DIR/.gofer/, outside the payload. At the end of every run that wrote
// anything the tag files are written again from the state's records,
// each atomically (package bagit): bagit.txt, manifest-sha256.txt (the
// sha256 the mirror computed as it received each file, so nothing is
// read again), bag-info.txt (with Gofer-Server-Hash-Algorithm naming the
// algorithms of the server's checksums that proved payload files, when
// any did) and tagmanifest-sha256.txt. A rerun, with
// Options.Delete too, so leaves a bag whose manifests describe its
// payload. Symbolic links have no place in a bag: a bag follows them
// (SymlinksFollow) unless told to skip them.

// bagPayload is the local directory of a bag's payload.
const bagPayload = bagit.PayloadDir

// prepareBag checks that DIR's state is of the same layout as the run
// (a bag's paths begin with data/, a plain mirror's do not) and marks it.
func (e *engine) prepareBag() error {
	if e.st == nil || e.opts.DryRun {
		return nil
	}
	bag, files := isBag(e.st), false
	if !bag {
		scan(e.st, bucketFiles, func(string, record) { files = true })
	}
	switch {
	case e.opts.Bag && !bag && files:
		return fmt.Errorf("mirror: %s holds a mirror that is not kept as a bag: %w", e.dir, schemes.ErrUsage)
	case !e.opts.Bag && bag:
		return fmt.Errorf("mirror: %s is kept as a bag: %w", e.dir, schemes.ErrUsage)
	case e.opts.Bag && !bag:
		e.st.write(bucketMeta, keyBag, true)
	}
	return nil
}

// writeBag writes the bag's tag files from the state's records.
func (e *engine) writeBag(rawURL string) error {
	if err := e.st.flush(); err != nil {
		return err
	}
	if err := bagit.WriteDeclaration(e.dir); err != nil {
		return err
	}
	var octets, files int64
	var scanErr error
	algs := map[string]bool{} // the servers' checksums that proved files
	err := bagit.WriteManifest(e.dir, "sha256", func(yield func(string, string) bool) {
		stop := false
		scanErr = e.st.scanFiles(func(p string, rec record) {
			if stop || !inManifest(p, rec) {
				return
			}
			octets += rec.Size
			files++
			if alg, _, ok := strings.Cut(rec.ServerHash, ":"); ok {
				algs[alg] = true
			}
			stop = !yield(p, rec.SHA256)
		})
	})
	if err == nil {
		err = scanErr
	}
	if err != nil {
		return err
	}
	agent := e.opts.BagAgent
	if agent == "" {
		agent = "gofer"
	}
	info := []bagit.Field{
		{Label: "External-Identifier", Value: security.RedactURL(rawURL)},
		{Label: "Bagging-Date", Value: time.Now().UTC().Format(time.DateOnly)},
		{Label: "Bag-Software-Agent", Value: agent},
		{Label: "Payload-Oxum", Value: strconv.FormatInt(octets, 10) + "." + strconv.FormatInt(files, 10)},
	}
	if len(algs) > 0 {
		// Which of the server's own checksums proved payload files as
		// they were received (the state keeps each file's).
		info = append(info, bagit.Field{Label: "Gofer-Server-Hash-Algorithm", Value: strings.Join(slices.Sorted(maps.Keys(algs)), ", ")})
	}
	if err := bagit.WriteBagInfo(e.dir, info); err != nil {
		return err
	}
	return bagit.WriteTagManifest(e.dir, "sha256", []string{bagit.DeclarationFile, bagit.BagInfoFile, bagit.ManifestName("sha256")})
}

// inManifest reports whether the record at p is a payload file whose
// bytes the mirror holds complete, with their sha256.
func inManifest(p string, rec record) bool {
	return strings.HasPrefix(p, bagPayload+"/") && (rec.Kind == kindFile || rec.Kind == kindMenu) &&
		!rec.Partial && rec.SHA256 != ""
}
