// Command peakrss runs a command and writes the command's own peak resident
// set size, in KiB, to a file when it ends:
//
//	peakrss FILE COMMAND [ARG...]
//
// It exists because a child's rusage is not its own on Linux when its
// parent is large: Go starts processes with vfork, and exec records the
// parent's peak RSS as the child's starting maximum, so a test binary that
// has grown to 200 MiB sees every child "peak" at 200 MiB. Started from this
// small program instead, the child inherits this program's few MiB.
//
// Standard input, output and error pass straight through; SIGINT and SIGTERM
// are forwarded; the child is killed if peakrss is; the exit status is the
// child's (a child killed by a signal kills peakrss with the same signal).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss FILE COMMAND [ARG...]")
		os.Exit(2)
	}
	// The parent-death signal belongs to the thread that starts the child.
	runtime.LockOSThread()
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	cmd.Wait()
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if err := os.WriteFile(os.Args[1], []byte(strconv.FormatInt(ru.Maxrss, 10)+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(125)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		signal.Reset(ws.Signal())
		syscall.Kill(os.Getpid(), ws.Signal())
		os.Exit(128 + int(ws.Signal()))
	}
	os.Exit(ws.ExitStatus())
}
