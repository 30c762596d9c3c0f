package warc

import (
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// A Gopher+ attribute block and the item it describes are fetched apart,
// in either order (a mirror asks a menu for "$", its items' attributes,
// before it fetches the items). The writer links them whichever comes
// first:
//
//   - an attribute block recorded after its item's record names that
//     record in WARC-Refers-To (WARC 1.1 §5.11 allows it in metadata
//     records); a "$" block's item is its menu;
//   - an item recorded after an attribute block that described it names
//     the block in WARC-Concurrent-To.
//
// Items are known by server and selector, whatever type, search or
// Gopher+ string the URL that fetched them carried.

// itemKey returns the key a Gopher URI's item is known by, "" for other
// URIs.
func itemKey(uri string) string {
	scheme, _, _ := strings.Cut(uri, ":")
	if s := strings.ToLower(scheme); s != "gopher" && s != "gophers" {
		return ""
	}
	u, err := schemes.Parse(uri)
	if err != nil || u.Gopher == nil {
		return ""
	}
	return strings.ToLower(u.Host) + ":" + strconv.Itoa(u.EffectivePort()) + "\t" + u.Gopher.Selector
}

// linkOf returns, for an item known by key k (itemKey), the record ID of
// the item when attrs (an attribute block looks for the item it
// describes), else that of the last attribute block that described it
// before any record of it was written (a menu fetched twice, as a listing
// and raw, links both records to it). "" when there is none.
func (w *Writer) linkOf(k string, attrs bool) string {
	if k == "" {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if attrs {
		return w.items[k]
	}
	return w.attrs[k]
}

// notedAttrs notes an attribute block written as record id, of the item
// known by k, describing the items of URLs describes too: those not
// recorded yet will link to it.
func (w *Writer) notedAttrs(id, k string, describes []string) {
	keys := []string{k}
	for _, d := range describes {
		keys = append(keys, itemKey(d))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.attrs == nil {
		w.attrs = map[string]string{}
	}
	for _, k := range keys {
		if k != "" && w.items[k] == "" {
			w.attrs[k] = id
		}
	}
}

// notedItem notes an item known by k written as record id.
func (w *Writer) notedItem(id, k string) {
	if k == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.items == nil {
		w.items = map[string]string{}
	}
	w.items[k] = id
}
