//go:build !unix

package ab

import "os/exec"

// ownGroup does nothing where there are no process groups: Stop ends the
// shell alone.
func ownGroup(*exec.Cmd) {}

func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
