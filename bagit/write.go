package bagit

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"iter"
	"path/filepath"
	"strings"

	"github.com/goferurl/gofer/internal/atomicfile"
)

// WriteDeclaration writes bagit.txt: this package's version, UTF-8.
func WriteDeclaration(dir string) error {
	return writeAtomic(dir, DeclarationFile, func(w *bufio.Writer) error {
		_, err := fmt.Fprintf(w, "BagIt-Version: %s\nTag-File-Character-Encoding: UTF-8\n", Version)
		return err
	})
}

// WriteManifest writes the payload manifest of alg from entries: each a
// path relative to the bag ("data/..."), slash-separated, and its
// checksum in hexadecimal. Paths are percent-encoded (EncodePath).
func WriteManifest(dir, alg string, entries iter.Seq2[string, string]) error {
	if NewHash(alg) == nil {
		return fmt.Errorf("bagit: unknown algorithm %q", alg)
	}
	return writeAtomic(dir, ManifestName(alg), func(w *bufio.Writer) error {
		for p, sum := range entries {
			if _, err := fmt.Fprintf(w, "%s  %s\n", strings.ToLower(sum), EncodePath(p)); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteBagInfo writes bag-info.txt with fields in their order. A value
// must hold no line break.
func WriteBagInfo(dir string, fields []Field) error {
	for _, f := range fields {
		if strings.ContainsAny(f.Label+f.Value, "\r\n") || strings.Contains(f.Label, ":") {
			return fmt.Errorf("bagit: bag-info field %q: a label holds no ':' and neither holds a line break", f.Label)
		}
	}
	return writeAtomic(dir, BagInfoFile, func(w *bufio.Writer) error {
		for _, f := range fields {
			if _, err := fmt.Fprintf(w, "%s: %s\n", f.Label, f.Value); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteTagManifest hashes the tag files named (paths relative to the
// bag, none of them a tag manifest) and writes the tag manifest of alg.
func WriteTagManifest(dir, alg string, files []string) error {
	if NewHash(alg) == nil {
		return fmt.Errorf("bagit: unknown algorithm %q", alg)
	}
	buf := make([]byte, 64<<10)
	sums := make([]string, len(files))
	for i, p := range files {
		h := NewHash(alg)
		if _, err := hashFile(filepath.Join(dir, filepath.FromSlash(p)), h, buf); err != nil {
			return err
		}
		sums[i] = hex.EncodeToString(h.Sum(nil))
	}
	return writeAtomic(dir, TagManifestName(alg), func(w *bufio.Writer) error {
		for i, p := range files {
			if _, err := fmt.Fprintf(w, "%s  %s\n", sums[i], EncodePath(p)); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeAtomic writes the file name in dir whole or not at all.
func writeAtomic(dir, name string, fill func(*bufio.Writer) error) error {
	if err := atomicfile.Write(filepath.Join(dir, name), 0o644, fill); err != nil {
		return fmt.Errorf("bagit: writing %s: %w", name, err)
	}
	return nil
}
