package schemes

import (
	"errors"
	"testing"
)

// ErrNotFound refines ErrRefused: a not-found error matches both, so that
// a caller that tells it apart can and every other sees a refusal; other
// refusals are not "not found".
func TestNotFoundIsARefusal(t *testing.T) {
	nf := Errorf(ErrNotFound, "550 no such file")
	if !errors.Is(nf, ErrNotFound) || !errors.Is(nf, ErrRefused) {
		t.Errorf("not found: Is(ErrNotFound) %v, Is(ErrRefused) %v", errors.Is(nf, ErrNotFound), errors.Is(nf, ErrRefused))
	}
	n := 0
	for _, k := range Kinds {
		if errors.Is(nf, k) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("a not-found error matches %d of Kinds, want one (ErrRefused)", n)
	}
	if r := Errorf(ErrRefused, "530 no"); errors.Is(r, ErrNotFound) {
		t.Error("a refusal matches ErrNotFound")
	}
}
