package h1

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// stampReader reads a connection of Go's own with recvmsg through its
// RawConn, so that Go's poller still waits and keeps the deadlines, and
// each read comes with the kernel's receive stamp.
type stampReader struct {
	raw   syscall.RawConn
	buf   evloop.StampBuf
	fn    func(fd uintptr) bool // sr.once, made once: a method value per read would allocate
	p     []byte
	n     int
	stamp int64
	errno syscall.Errno
}

// newStampReader turns on receive stamps for a TCP connection of Go's
// own; nil for anything else, or when the socket refuses them.
func newStampReader(nc net.Conn) *stampReader {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	on := false
	if raw.Control(func(fd uintptr) { on = evloop.EnableStamps(int(fd)) }) != nil || !on {
		return nil
	}
	sr := &stampReader{raw: raw}
	sr.fn = sr.once
	return sr
}

// once is one try: false asks the poller to wait until the socket is
// readable and call again.
func (sr *stampReader) once(fd uintptr) bool {
	sr.n, sr.stamp, sr.errno = evloop.RecvStamped(int(fd), sr.p, &sr.buf)
	return sr.errno != syscall.EAGAIN && sr.errno != syscall.EINTR
}

// read reads into p as net.Conn's Read would, with the stamp (0 none).
func (sr *stampReader) read(p []byte) (int, int64, error) {
	sr.p = p
	err := sr.raw.Read(sr.fn)
	sr.p = nil
	switch {
	case err != nil: // a deadline or a close, as the poller reports them
		return 0, 0, err
	case sr.errno != 0:
		return 0, 0, os.NewSyscallError("recvmsg", sr.errno)
	case sr.n == 0 && len(p) > 0:
		return 0, 0, io.EOF
	}
	return sr.n, sr.stamp, nil
}

// holdStamps keeps the kernel stamping while the pools live, so that the
// first answers of a run carry stamps too (evloop.HoldStamps).
func holdStamps() func() {
	release, _ := evloop.HoldStamps(50 * time.Millisecond)
	return release
}
