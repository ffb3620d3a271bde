//go:build windows

package target

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// mapArena commits n bytes of memory outside the Go heap (VirtualAlloc,
// Windows' anonymous mapping).
func mapArena(n int) ([]byte, error) {
	addr, err := windows.VirtualAlloc(0, uintptr(n), windows.MEM_COMMIT|windows.MEM_RESERVE, windows.PAGE_READWRITE)
	if err != nil {
		return nil, err
	}
	// The memory is not Go's: the collector never moves or frees it, so an
	// address held as a number stays valid until VirtualFree.
	return unsafe.Slice((*byte)(unsafe.Add(nil, addr)), n), nil
}

func unmapArena(a []byte) {
	_ = windows.VirtualFree(uintptr(unsafe.Pointer(&a[0])), 0, windows.MEM_RELEASE)
}
