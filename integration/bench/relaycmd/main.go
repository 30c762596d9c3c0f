// Command relaycmd runs the latency relay (package integration/relay) in
// front of one server, for the shell benchmarks in integration/bench:
//
//	relaycmd -listen 127.0.0.1:0 -target 127.0.0.21:21 -rtt 50ms [-rate 100MiB] [-ftp] [-ready FILE]
//	         [-seed N] [-reset-every 4MiB] [-stall 0.01] [-stall-after 64KiB] [-stall-for 30s] [-drop 0.05] [-drop-after 20]
//	         [-trace FILE]
//
// The fault flags inject the relay's faults (relay.Faults): a reset after
// every -reset-every bytes forwarded on data connections, the fraction
// -stall of data connections stalled after -stall-after bytes for
// -stall-for (then reset; 0: until the control connection ends), the
// fraction -drop of control connections closed after up to -drop-after
// commands, which connections drawn from -seed.
//
// Once listening it writes the relay's address on a line of its own to
// standard output (and to FILE with -ready, written whole when ready), so
// that a script can wait for it and use an ephemeral port. It prints the
// counts of what the relay saw, one line
//
//	conns N turns N up N down N resets N stalls N drops N
//
// on SIGUSR1 (and goes on), on SIGUSR2 (then resets them to zero), and on
// SIGTERM or SIGINT (then ends). A counts line goes to standard output, or
// to the file -counts names, rewritten whole each time, which a script
// reads after signalling: the file appears only once the counts are in it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/goferurl/gofer/integration/relay"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (port 0: any)")
	target := flag.String("target", "", "server address host:port")
	rtt := flag.Duration("rtt", 0, "round-trip time added to every connection")
	rate := flag.String("rate", "", "bandwidth cap per direction in bytes a second (suffix K, M, G, KiB, MiB, GiB); none by default")
	window := flag.String("window", "", "bytes in flight per direction (default 4MiB)")
	ftp := flag.Bool("ftp", false, "rewrite FTP PASV and EPSV replies so that data connections come through the relay")
	ready := flag.String("ready", "", "write the listening address to this file once listening")
	counts := flag.String("counts", "", "write counts to this file instead of standard output")
	seed := flag.Int64("seed", 1, "seed of the generator that picks the connections faults hit")
	resetEvery := flag.String("reset-every", "", "reset a data connection after every N bytes forwarded on all of them (relaycmd's -rate syntax); none by default")
	stall := flag.Float64("stall", 0, "fraction of data connections to stall (stop forwarding, keep open)")
	stallAfter := flag.String("stall-after", "", "bytes a stalled data connection delivers first")
	stallFor := flag.Duration("stall-for", 0, "how long a stalled data connection stays open before the relay resets it (0: until its control connection ends)")
	drop := flag.Float64("drop", 0, "fraction of control connections to close")
	dropAfter := flag.Int("drop-after", 0, "close a dropped connection after 0 to N client commands (0: at accept)")
	trace := flag.String("trace", "", "write every connection's events, as the client sees them, to this file (relay.Config.Trace)")
	flag.Parse()
	if *target == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: relaycmd -target HOST:PORT [-listen ADDR] [-rtt D] [-rate N] [-window N] [-ftp] [-ready FILE] [-counts FILE] [-seed N] [-reset-every N] [-stall F] [-stall-after N] [-stall-for D] [-drop F] [-drop-after N] [-trace FILE]")
		os.Exit(2)
	}
	cfg := relay.Config{RTT: *rtt}
	var err error
	if cfg.Rate, err = bytesFlag(*rate); err != nil {
		fail("-rate: %v", err)
	}
	w, err := bytesFlag(*window)
	if err != nil {
		fail("-window: %v", err)
	}
	cfg.Window = int(w)
	cfg.Faults = relay.Faults{Seed: *seed, Stall: *stall, StallFor: *stallFor, Drop: *drop, DropAfter: *dropAfter}
	if cfg.Faults.ResetEvery, err = bytesFlag(*resetEvery); err != nil {
		fail("-reset-every: %v", err)
	}
	if cfg.Faults.StallAfter, err = bytesFlag(*stallAfter); err != nil {
		fail("-stall-after: %v", err)
	}

	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			fail("%v", err)
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		defer bw.Flush()
		cfg.Trace = bw
	}

	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTERM, syscall.SIGINT)
	r, err := relay.Listen(*listen, *target, *ftp, cfg)
	if err != nil {
		fail("%v", err)
	}
	if *ready != "" {
		if err := writeWhole(*ready, r.Addr()+"\n"); err != nil {
			fail("%v", err)
		}
	}
	fmt.Println(r.Addr())

	for s := range sig {
		c := r.Counts()
		line := fmt.Sprintf("conns %d turns %d up %d down %d resets %d stalls %d drops %d\n",
			c.Conns, c.Turns, c.Up, c.Down, c.Resets, c.Stalls, c.Drops)
		if *counts != "" {
			if err := writeWhole(*counts, line); err != nil {
				fmt.Fprintln(os.Stderr, "relaycmd:", err)
			}
		} else {
			fmt.Print(line)
		}
		switch s {
		case syscall.SIGUSR2:
			r.Reset()
		case syscall.SIGTERM, syscall.SIGINT:
			r.Close()
			return
		}
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "relaycmd: "+format+"\n", args...)
	os.Exit(2)
}

// writeWhole replaces name with text so that a reader never sees half of it.
func writeWhole(name, text string) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".relaycmd-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// bytesFlag reads a byte count such as 100MiB, 12.5M or 4096; "" is 0.
func bytesFlag(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		n      float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1e9}, {"M", 1e6}, {"K", 1e3}, {"B", 1}}
	mult := 1.0
	num := s
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			mult, num = u.n, strings.TrimSuffix(s, u.suffix)
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%q is not a byte count", s)
	}
	return int64(f * mult), nil
}
