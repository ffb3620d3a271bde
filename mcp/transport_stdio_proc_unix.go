//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// ownProcessGroup puts a stdio server in a process group of its own, so a
// Ctrl-C meant for mcpbench does not kill the server before mcpbench has
// shut it down in order.
func ownProcessGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the server's whole process group (its children
// too).
func signalGroup(p *os.Process, sig syscall.Signal) {
	_ = syscall.Kill(-p.Pid, sig)
}
