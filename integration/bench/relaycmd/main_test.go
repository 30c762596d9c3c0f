package main

import "testing"

func TestBytesFlag(t *testing.T) {
	for in, want := range map[string]int64{
		"": 0, "4096": 4096, "4KiB": 4096, "100MiB": 100 << 20, "1GiB": 1 << 30,
		"12.5M": 12_500_000, "2K": 2000, "7B": 7,
	} {
		got, err := bytesFlag(in)
		if err != nil || got != want {
			t.Errorf("bytesFlag(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"MiB", "-1", "ten", "1TiB"} {
		if n, err := bytesFlag(bad); err == nil {
			t.Errorf("bytesFlag(%q) = %d, want an error", bad, n)
		}
	}
}
