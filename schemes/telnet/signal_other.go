//go:build !unix

package telnet

import (
	"os"
	"os/signal"
)

func notifyInterrupt() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	return ch, func() { signal.Stop(ch) }
}

// watchWindow: without SIGWINCH the size is reported once, when asked.
func watchWindow(func()) (stop func()) { return func() {} }
