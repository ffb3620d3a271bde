//go:build linux

package evloop

import (
	"syscall"
	"time"
	"unsafe"
)

// The kernel's receive stamps (SO_TIMESTAMPNS): the time, on
// CLOCK_REALTIME, at which the network stack took in the data a read
// returns; for TCP, that of the last segment the read consumed. They end
// a request's latency where the wire does, without the generator's own
// delay in noticing the answer (epoll, the scheduler, the read).

// stampOOB holds one SCM_TIMESTAMPNS control message: a header and a
// timespec, 32 bytes on 64-bit Linux; room for a second message the
// kernel might add.
const stampOOB = 64

// stamping is a Conn's receive-stamp state: recvmsg's message header and
// buffers live here so the stamped read allocates nothing.
type stamping struct {
	on bool
	// skip: reads take no stamp for now (SkipStamps).
	skip bool
	last int64 // the stamp of the last read that returned data, Unix ns; 0 none
	msg  syscall.Msghdr
	iov  syscall.Iovec
	oob  [stampOOB]byte
}

// EnableStamps asks the kernel to stamp what fd receives; a socket that
// refuses is read without stamps.
func EnableStamps(fd int) bool {
	return syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1) == nil
}

// RecvStamped is recvmsg(2) on a non-blocking socket into p with the
// kernel's receive stamp (Unix ns; 0 when the kernel gave none) read from
// the control messages into st's buffers. It allocates nothing.
func RecvStamped(fd int, p []byte, st *StampBuf) (int, int64, syscall.Errno) {
	return recvStamped(fd, p, (*stamping)(st))
}

// StampBuf is recvmsg's state for a caller of RecvStamped outside a loop.
type StampBuf stamping

func recvStamped(fd int, p []byte, st *stamping) (int, int64, syscall.Errno) {
	st.iov.Base = nil
	st.iov.SetLen(len(p))
	if len(p) > 0 {
		st.iov.Base = &p[0]
	}
	st.msg.Iov, st.msg.Iovlen = &st.iov, 1
	st.msg.Control = &st.oob[0]
	st.msg.SetControllen(stampOOB)
	st.msg.Flags = 0
	n, _, errno := syscall.RawSyscall(syscall.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&st.msg)), 0)
	// Kept, the pointer would pin p's array for the connection's life:
	// every idle connection held the 8 KiB read buffer it had given back
	// (h1's lend.go), most of an idle session's memory.
	st.iov.Base = nil
	if errno != 0 || int(n) <= 0 {
		return int(n), 0, errno
	}
	return int(n), parseStamp(st.oob[:min(int(st.msg.Controllen), stampOOB)]), 0
}

// parseStamp finds SCM_TIMESTAMPNS among the control messages in b
// without syscall.ParseSocketControlMessage, which allocates.
func parseStamp(b []byte) int64 {
	const hdr = syscall.SizeofCmsghdr
	for len(b) >= hdr {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&b[0]))
		l := int(h.Len)
		if l < hdr || l > len(b) {
			return 0
		}
		if h.Level == syscall.SOL_SOCKET && h.Type == syscall.SCM_TIMESTAMPNS && l >= hdr+16 {
			ts := (*syscall.Timespec)(unsafe.Pointer(&b[hdr]))
			return ts.Nano()
		}
		b = b[min(cmsgAlign(l), len(b)):]
	}
	return 0
}

func cmsgAlign(l int) int { return (l + 7) &^ 7 }

// SkipStamps makes c's reads plain read(2)s until it is called with false:
// for bytes whose arrival ends no latency (the rest of a stream already
// answered), recvmsg's control message is a cost for nothing: about 0.8 µs
// of the kernel's time per read more than read(2) on the 2-core machine we
// measure on (perf).
func (c *Conn) SkipStamps(skip bool) { c.st.skip = skip }

// LastStamp is the kernel's receive stamp of the last read on c that
// returned data (Unix ns, CLOCK_REALTIME), 0 when there was none, and
// clears it so that an answer never ends at an earlier one's stamp.
func (c *Conn) LastStamp() int64 {
	s := c.st.last
	c.st.last = 0
	return s
}

// HoldStamps makes sure the kernel is stamping received packets and
// keeps it so until the returned function is called. The kernel turns
// stamping on for all sockets when a first one asks, through deferred
// work that a busy core can hold up for a while; packets meanwhile carry
// no stamp. A datagram socket of its own, which sends to itself until a
// stamp taken on delivery comes back (within wait), rules that window out. It reports
// whether a stamp came.
func HoldStamps(wait time.Duration) (release func(), ok bool) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return func() {}, false
	}
	release = func() { syscall.Close(fd) }
	self := &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if syscall.Bind(fd, self) != nil || !EnableStamps(fd) {
		return release, false
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil || syscall.Connect(fd, sa) != nil {
		return release, false
	}
	var st StampBuf
	buf := []byte{0}
	for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if _, err := syscall.Write(fd, buf); err != nil {
			return release, false
		}
		// Loopback delivers a datagram within the send, and the kernel
		// stamps it there only once stamping is on; before, a datagram
		// socket's read stamps it late, at the read (TCP never does), so
		// only a stamp from before the send returned counts.
		sent := time.Now().UnixNano()
		if _, stamp, _ := RecvStamped(fd, buf, &st); stamp != 0 && stamp <= sent {
			return release, true
		}
	}
	return release, false
}
