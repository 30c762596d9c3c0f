//go:build unix

package telnet

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyInterrupt delivers the signals that end a terminal session, so that
// the terminal is restored before the program goes; stop undoes it.
func notifyInterrupt() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	return ch, func() { signal.Stop(ch) }
}

// watchWindow calls changed on every SIGWINCH until stop is called: RFC 1073
// asks the client to report each new window size.
func watchWindow(changed func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(ch, syscall.SIGWINCH)
	go func() {
		for {
			select {
			case <-ch:
				changed()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
