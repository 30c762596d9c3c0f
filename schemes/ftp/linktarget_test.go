package ftp

import (
	"strings"
	"testing"
)

// A link MLSD names without its target (ProFTPD's type=OS.unix=symlink)
// gets the target LIST shows for it, read on the same connection once the
// MLSD listing ends; a link LIST does not show keeps none, and the other
// entries come as MLSD gave them.
func TestListingMLSDLinkTargetsFromLIST(t *testing.T) {
	fake := newFake(t)
	fake.mlst = true
	fake.dirs["/pub"] = true
	fake.listings["MLSD /pub"] = "type=cdir;modify=20240102030405; .\r\n" +
		"type=OS.unix=symlink;modify=20240102030405; up\r\n" +
		"type=file;size=5;modify=20240102030405; a.txt\r\n" +
		"type=OS.unix=slink:/etc/motd; motd\r\n" +
		"type=OS.unix=symlink; hidden-from-list\r\n"
	fake.listings["LIST /pub"] = "total 1\r\n" +
		"lrwxrwxrwx    1 0        0               5 Jan 02 10:30 up -> a.txt\r\n" +
		"-rw-r--r--    1 0        0               5 Jan 02 10:30 a.txt\r\n" +
		"lrwxrwxrwx    1 0        0               9 Jan 02 10:30 motd -> /elsewhere\r\n"
	got, err := listAll(t, newReq(ftpURL(fake.port(), 0, "pub", "")))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range got {
		lines = append(lines, e.Type+" "+e.Name+" -> "+e.Target)
	}
	want := []string{
		"file a.txt -> ",
		"link motd -> /etc/motd",
		"link up -> a.txt",
		"link hidden-from-list -> ",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for _, e := range got {
		if e.URL == "" {
			t.Errorf("%s has no URL", e.Name)
		}
	}
}
