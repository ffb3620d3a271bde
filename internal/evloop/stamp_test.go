//go:build linux

package evloop

import (
	"fmt"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"
	"weak"
)

// TestReadStamps: a loop's connection reads the kernel's receive stamp
// with the data, a real-time instant between the echo's send and the
// read, cleared once taken.
func TestReadStamps(t *testing.T) {
	onEchoConn(t, func(c *Conn) error {
		buf := make([]byte, 64)
		before := time.Now().UnixNano()
		if _, err := c.Write([]byte("ping")); err != nil {
			return err
		}
		if _, err := c.Read(buf); err != nil {
			return err
		}
		after := time.Now().UnixNano()
		st := c.LastStamp()
		if st < before || st > after {
			t.Errorf("stamp %d ns after the write, read %d ns after it", st-before, after-before)
		}
		if c.LastStamp() != 0 {
			t.Error("a stamp taken twice")
		}
		return nil
	})
}

// TestSkippedStamps: reads made while stamps are skipped take none, and
// the next read after they are taken again has its own.
func TestSkippedStamps(t *testing.T) {
	onEchoConn(t, func(c *Conn) error {
		buf := make([]byte, 64)
		for i, skip := range []bool{true, false, true} {
			c.SkipStamps(skip)
			before := time.Now().UnixNano()
			if _, err := c.Write([]byte("ping")); err != nil {
				return err
			}
			if n, err := c.Read(buf); err != nil || string(buf[:n]) != "ping" {
				return fmt.Errorf("read %q, %v", buf[:n], err)
			}
			st := c.LastStamp()
			switch {
			case skip && st != 0:
				t.Errorf("read %d: a stamp while they were skipped", i)
			case !skip && (st < before || st > time.Now().UnixNano()):
				t.Errorf("read %d: stamp %d ns after the write, want one of this read", i, st-before)
			}
		}
		return nil
	})
}

// onEchoConn holds the kernel's stamping on and runs fn as the task of a
// loop, on a connection of the loop to an echo server.
func onEchoConn(t *testing.T, fn func(c *Conn) error) {
	t.Helper()
	release, ok := HoldStamps(5 * time.Second)
	defer release()
	if !ok {
		t.Fatal("the kernel gave no receive stamp within 5 s")
	}
	addr := listen(t, echo)
	g, err := NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var runErr error
	goDialed(g, addr, &runErr, func(nc net.Conn) error { return fn(nc.(*Conn)) })
	g.Run()
	if runErr != nil {
		t.Fatal(runErr)
	}
}

// TestRecvStampedAllocates nothing: the stamped read of the hot path,
// on a connected datagram socket to itself that always has data waiting.
func TestRecvStampedAllocatesNothing(t *testing.T) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	self, _ := syscall.Getsockname(fd)
	if err := syscall.Connect(fd, self); err != nil {
		t.Fatal(err)
	}
	release, ok := HoldStamps(5 * time.Second)
	defer release()
	if !ok || !EnableStamps(fd) {
		t.Fatal("SO_TIMESTAMPNS refused")
	}
	var st StampBuf
	buf := []byte("x")
	var n int
	var stamp int64
	var errno syscall.Errno
	allocs := testing.AllocsPerRun(200, func() {
		_, _ = syscall.Write(fd, buf)
		n, stamp, errno = RecvStamped(fd, buf, &st)
	})
	if n != 1 || stamp == 0 || errno != 0 {
		t.Fatalf("read %d bytes, stamp %d, errno %v", n, stamp, errno)
	}
	if allocs != 0 {
		t.Errorf("%.1f allocations per stamped read", allocs)
	}
}

// TestStampedReadKeepsNoBuffer: once a stamped read has returned, the
// connection holds nothing of the buffer it read into. It kept a pointer
// to it, so each idle connection pinned the last read buffer its client
// had lent it and given back (h1's lend.go): 8 KiB per idle session.
func TestStampedReadKeepsNoBuffer(t *testing.T) {
	onEchoConn(t, func(c *Conn) error {
		buf := new([64]byte)
		w := weak.Make(buf)
		if _, err := c.Write([]byte("ping")); err != nil {
			return err
		}
		if _, err := c.Read(buf[:]); err != nil {
			return err
		}
		buf = nil
		runtime.GC()
		if w.Value() != nil {
			t.Error("the connection still holds the buffer of its last read")
		}
		runtime.KeepAlive(c)
		return nil
	})
}
