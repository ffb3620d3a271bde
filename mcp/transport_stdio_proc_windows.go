//go:build windows

package mcp

import (
	"os"
	"syscall"
)

// ownProcessGroup gives a stdio server a console process group of its own,
// so a Ctrl-C meant for mcpbench does not reach it first.
func ownProcessGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// signalGroup on Windows: there is no SIGTERM to send a process, so the
// closed stdin is the polite request and SIGKILL ends the process itself
// (not its children: Windows has no process-group kill short of a job
// object).
func signalGroup(p *os.Process, sig syscall.Signal) {
	if sig == syscall.SIGKILL {
		_ = p.Kill()
	}
}
