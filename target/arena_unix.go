//go:build unix

package target

import "syscall"

// mapArena maps n bytes of anonymous memory outside the Go heap.
func mapArena(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
}

func unmapArena(a []byte) { _ = syscall.Munmap(a) }
