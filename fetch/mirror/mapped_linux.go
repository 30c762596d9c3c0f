package mirror

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// releaseMapped drops this process's page table entries for every memory
// mapping of the file fi (bbolt reads its file through one read-only shared
// mapping). The pages stay in the kernel's page cache and a later read
// faults them back in without I/O, but they stop counting in the resident
// set, which would otherwise grow to the whole state file: a mirror that
// reads or rewrites the record of every file, as a rerun does, touches
// every page. The caller keeps bbolt from remapping meanwhile (an open read
// transaction does), so the addresses read from /proc/self/maps are still
// the file's when they are advised.
func releaseMapped(fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	// /proc/self/maps: "START-END PERMS OFFSET MAJOR:MINOR INODE PATH", the
	// device in hex.
	major := (st.Dev>>8)&0xfff | (st.Dev>>32)&^0xfff
	minor := st.Dev&0xff | (st.Dev>>12)&^0xff
	dev := strconv.FormatUint(major, 16) + ":" + strconv.FormatUint(minor, 16)
	ino := strconv.FormatUint(st.Ino, 10)
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[4] != ino || !sameDev(fields[3], dev) {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED); errno != 0 {
			return errno
		}
	}
	return sc.Err()
}

// sameDev compares a maps device ("fd:01", zero-padded hex) with dev (hex,
// unpadded).
func sameDev(field, dev string) bool {
	fmaj, fmin, ok := strings.Cut(field, ":")
	dmaj, dmin, _ := strings.Cut(dev, ":")
	return ok && strings.TrimLeft(fmaj, "0") == strings.TrimLeft(dmaj, "0") && strings.TrimLeft(fmin, "0") == strings.TrimLeft(dmin, "0")
}
