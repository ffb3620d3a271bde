//go:build linux

package evloop

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Conn is a TCP connection of a loop: a non-blocking socket registered
// (edge-triggered) with the loop's epoll instance. Read, Write and Dial
// suspend the running task instead of blocking, so they must be called
// from a task of the Conn's loop; SetDeadline and Close may be called
// from anywhere.
type Conn struct {
	l  *Loop
	fd int
	id int32
	// readable and writable are what epoll last said, cleared when a
	// read or write finds the socket empty or full.
	readable, writable bool
	// ended is set once epoll reports the peer's end or an error: reads
	// then always reach the socket, since no further edge will come.
	ended        bool
	waiter       *task // the task suspended on this Conn
	waitWrite    bool
	parked       atomic.Bool  // waiter is set: for goroutines off the loop
	rdl, wdl     atomic.Int64 // deadlines, Unix ns; 0 for none
	closed       atomic.Bool
	laddr, raddr net.Addr
	st           stamping // the kernel's receive stamps (stamp.go)
	// onReadable is called on a helper task when c turns readable with no
	// task waiting on it (notify.go); calling while it runs.
	onReadable func()
	calling    bool
}

var _ net.Conn = (*Conn)(nil)

// ErrOffLoop is returned by a Conn used outside a task of its loop.
var ErrOffLoop = errors.New("evloop: connection used outside its loop")

// maxDialing bounds the connects a loop has in progress, so a thousand
// workers starting at once do not overflow the server's accept queue.
const maxDialing = 64

// Dial connects to addr (host:port) from a task of l, giving up at
// deadline (zero: no deadline).
func (l *Loop) Dial(addr string, deadline time.Time) (net.Conn, error) {
	ra, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: err}
	}
	for l.dialing >= maxDialing {
		if !l.SleepUntil(context.Background(), time.Now().Add(time.Millisecond)) {
			return nil, dialError(ra, errStopped)
		}
	}
	l.dialing++
	defer func() { l.dialing-- }()
	c, err := l.connect(ra, deadline)
	if err != nil {
		return nil, dialError(ra, err)
	}
	return c, nil
}

func (l *Loop) connect(ra *net.TCPAddr, deadline time.Time) (*Conn, error) {
	family, sa := syscall.AF_INET, syscall.Sockaddr(nil)
	if ip4 := ra.IP.To4(); ip4 != nil {
		a := &syscall.SockaddrInet4{Port: ra.Port}
		copy(a.Addr[:], ip4)
		sa = a
	} else {
		a := &syscall.SockaddrInet6{Port: ra.Port}
		copy(a.Addr[:], ra.IP.To16())
		family, sa = syscall.AF_INET6, a
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	// As Go's own dialer does: requests go out whole, at once.
	_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	c, err := l.register(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	c.st.on = EnableStamps(fd)
	c.raddr = ra
	if !deadline.IsZero() {
		c.wdl.Store(deadline.UnixNano())
	}
	if err := c.finishConnect(sa); err != nil {
		c.Close()
		return nil, err
	}
	c.wdl.Store(0)
	if la, err := syscall.Getsockname(fd); err == nil {
		c.laddr = sockaddrToTCP(la)
	}
	return c, nil
}

func (c *Conn) finishConnect(sa syscall.Sockaddr) error {
	err := syscall.Connect(c.fd, sa)
	if err == nil {
		return nil
	}
	if err != syscall.EINPROGRESS && err != syscall.EINTR {
		return os.NewSyscallError("connect", err)
	}
	for !c.writable {
		if err := c.wait(true); err != nil {
			return err
		}
	}
	if errno, err := syscall.GetsockoptInt(c.fd, syscall.SOL_SOCKET, syscall.SO_ERROR); err != nil || errno != 0 {
		if err == nil {
			err = syscall.Errno(errno)
		}
		return os.NewSyscallError("connect", err)
	}
	return nil
}

// register adds fd to the loop's epoll instance under a free id.
func (l *Loop) register(fd int) (*Conn, error) {
	c := &Conn{l: l, fd: fd}
	if n := len(l.free); n > 0 {
		c.id = l.free[n-1]
		l.free = l.free[:n-1]
		l.conns[c.id] = c
	} else {
		c.id = int32(len(l.conns))
		l.conns = append(l.conns, c)
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLOUT | syscall.EPOLLRDHUP | epollET, Fd: c.id}
	if err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.conns[c.id] = nil
		l.free = append(l.free, c.id)
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	return c, nil
}

// EPOLLET does not fit syscall's int constant type as an event mask.
const epollET = 1 << 31

// Read reads what the socket holds, suspending the task until it holds
// something. A read shorter than p means the socket is drained; the next
// one waits for epoll rather than finding nothing.
func (c *Conn) Read(p []byte) (int, error) {
	for {
		if c.closed.Load() {
			return 0, c.opError("read", net.ErrClosed)
		}
		if c.readable {
			n, errno := c.read(p)
			switch {
			case n > 0:
				if n < len(p) && !c.ended {
					c.readable = false
				}
				return n, nil
			case errno == syscall.EAGAIN:
				c.readable = false
			case errno == syscall.EINTR:
				continue
			case errno != 0:
				return 0, c.opError("read", os.NewSyscallError("read", errno))
			case len(p) == 0:
				return 0, nil
			default:
				return 0, io.EOF
			}
		}
		if err := c.wait(false); err != nil {
			return 0, err
		}
	}
}

// read is one read(2), or recvmsg(2) with the receive stamp when the
// socket gives them.
func (c *Conn) read(p []byte) (int, syscall.Errno) {
	if !c.st.on || c.st.skip {
		return rawIO(syscall.SYS_READ, c.fd, p, 0)
	}
	n, stamp, errno := recvStamped(c.fd, p, &c.st)
	if n > 0 && stamp != 0 {
		c.st.last = stamp
	}
	return n, errno
}

// Write writes all of p, suspending the task while the socket is full.
func (c *Conn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		if c.closed.Load() {
			return written, c.opError("write", net.ErrClosed)
		}
		// MSG_NOSIGNAL: a peer that closed gives EPIPE, not a signal.
		n, errno := rawIO(syscall.SYS_SENDTO, c.fd, p[written:], syscall.MSG_NOSIGNAL)
		switch {
		case n > 0:
			written += n
		case errno == syscall.EAGAIN:
			c.writable = false
			if err := c.wait(true); err != nil {
				return written, err
			}
		case errno == syscall.EINTR:
		default:
			return written, c.opError("write", os.NewSyscallError("write", errno))
		}
	}
	return written, nil
}

// rawIO is read(2) or send(2) without the scheduler's system-call
// bookkeeping: on a non-blocking socket it never blocks.
func rawIO(trap uintptr, fd int, p []byte, flags uintptr) (int, syscall.Errno) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	n, _, errno := syscall.RawSyscall6(trap, uintptr(fd), uintptr(ptr), uintptr(len(p)), flags, 0, 0)
	return int(n), errno
}

// wait suspends the task until epoll says the socket is ready for a read
// (or a write), or its deadline passes, which it then reports.
func (c *Conn) wait(write bool) error {
	op := "read"
	if write {
		op = "write"
	}
	if c.l.current == nil {
		return c.opError(op, ErrOffLoop)
	}
	c.waiter, c.waitWrite = c.l.current, write
	c.parked.Store(true) // before the deadline and closed are read: nudge
	dl := c.deadline(write)
	var err error
	switch {
	case c.closed.Load():
		err = net.ErrClosed
	case dl != 0 && dl <= c.l.polled:
		// The loop's last reading of the clock: a deadline it misses,
		// as just passed, ends the loop's wait and is caught below.
		err = os.ErrDeadlineExceeded
	default:
		if dl != 0 {
			c.l.due = min(c.l.due, dl)
		}
		if !c.l.suspend() {
			err = errStopped
		}
	}
	c.waiter = nil
	c.parked.Store(false)
	switch {
	case err != nil:
		return c.opError(op, err)
	case c.closed.Load():
		return c.opError(op, net.ErrClosed)
	}
	if ready := write && c.writable || !write && c.readable; !ready && c.passed(write, time.Now().UnixNano()) {
		return c.opError(op, os.ErrDeadlineExceeded)
	}
	return nil
}

var errStopped = errors.New("evloop: the loop stopped")

// deadline is the read (or write) deadline in Unix ns, 0 for none.
func (c *Conn) deadline(write bool) int64 {
	if write {
		return c.wdl.Load()
	}
	return c.rdl.Load()
}

// passed reports whether the read (or write) deadline is before ns.
func (c *Conn) passed(write bool, ns int64) bool {
	dl := c.deadline(write)
	return dl != 0 && dl <= ns
}

func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.laddr, Addr: c.raddr, Err: err}
}

func dialError(ra net.Addr, err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		op.Op = "dial"
		return op
	}
	return &net.OpError{Op: "dial", Net: "tcp", Addr: ra, Err: err}
}

// Close closes the socket, which takes it out of the epoll instance; the
// loop frees its id at its next scan.
func (c *Conn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	err := syscall.Close(c.fd)
	c.nudge() // a closed socket leaves epoll without an event
	return err
}

func (c *Conn) LocalAddr() net.Addr  { return c.laddr }
func (c *Conn) RemoteAddr() net.Addr { return c.raddr }

func (c *Conn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *Conn) SetReadDeadline(t time.Time) error {
	c.rdl.Store(unixNano(t))
	c.nudge()
	return nil
}

func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.wdl.Store(unixNano(t))
	c.nudge()
	return nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return max(t.UnixNano(), 1)
}

func sockaddrToTCP(sa syscall.Sockaddr) net.Addr {
	switch a := sa.(type) {
	case *syscall.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]).To16(), Port: a.Port}
	case *syscall.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	}
	return nil
}

// Adopt moves an open TCP connection of Go's own onto l: its socket is
// duplicated, made non-blocking and registered, and nc is closed. The
// connection carries on where it was (nothing it had buffered is lost,
// as a net.Conn buffers nothing). It must be called from a task of l.
func (l *Loop) Adopt(nc net.Conn) (net.Conn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, errors.New("evloop: not a socket connection")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(s uintptr) { fd, dupErr = dupCloexec(int(s)) }); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, os.NewSyscallError("dup", dupErr)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("setnonblock", err)
	}
	c, err := l.register(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	c.laddr, c.raddr = nc.LocalAddr(), nc.RemoteAddr()
	c.st.on = EnableStamps(fd)
	c.writable = true
	c.readable = true // whatever came meanwhile: the first read looks
	nc.Close()
	return c, nil
}

func dupCloexec(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}
