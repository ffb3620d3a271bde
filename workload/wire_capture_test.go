//go:build linux

package workload_test

import (
	"encoding/binary"
	"net"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// wireCapture is the test's own tcpdump: an AF_PACKET socket on the
// loopback device that keeps, for each request to the server's port, the
// kernel's time of its first data packet and of the first data packet of
// the answer (each packet as lo delivered it: tcpdump's view of lo, as
// libpcap leaves out lo's outgoing copy of each packet).
type wireCapture struct {
	fd      int
	port    uint16
	mu      sync.Mutex
	pending map[uint16]int64 // client port: when its request went out
	lat     []time.Duration
	stop    chan struct{}
	done    chan struct{}
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func startCapture(t *testing.T, port uint16) *wireCapture {
	t.Helper()
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, int(htons(syscall.ETH_P_ALL)))
	if err != nil {
		if os.Geteuid() != 0 {
			t.Skipf("capturing on lo needs root (CI runs as root): %v", err)
		}
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			syscall.Close(fd)
			t.Fatal(err)
		}
	}
	must(syscall.Bind(fd, &syscall.SockaddrLinklayer{Protocol: htons(syscall.ETH_P_ALL), Ifindex: lo.Index}))
	must(syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1))
	must(syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, 32<<20))
	// PACKET_IGNORE_OUTGOING (Linux 4.20): the kernel does not queue lo's
	// outgoing copies at all, which halves what the capture must keep up with.
	must(syscall.SetsockoptInt(fd, syscall.SOL_PACKET, 23, 1))
	tv := syscall.NsecToTimeval(int64(20 * time.Millisecond))
	must(syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv))
	c := &wireCapture{fd: fd, port: port, pending: map[uint16]int64{}, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

func (c *wireCapture) run() {
	defer close(c.done)
	// tcpdump is a process of its own, on any core: the capture's thread
	// leaves the set-up's pinned core (it ends with the goroutine).
	runtime.LockOSThread()
	all := [16]uint64{}
	for i := range all {
		all[i] = ^uint64(0)
	}
	syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, uintptr(len(all)*8), uintptr(unsafe.Pointer(&all)))
	buf, oob := make([]byte, 256), make([]byte, 128)
	for {
		n, oobn, _, from, err := syscall.Recvmsg(c.fd, buf, oob, syscall.MSG_TRUNC)
		if err != nil {
			// The receive time-out: the queue is drained, so once asked
			// to stop, every packet of the run has been read.
			select {
			case <-c.stop:
				return
			default:
				continue
			}
		}
		ll, ok := from.(*syscall.SockaddrLinklayer)
		if !ok || ll.Pkttype == syscall.PACKET_OUTGOING {
			continue
		}
		c.packet(buf[:min(n, len(buf))], stampOf(oob[:oobn]))
	}
}

func stampOf(oob []byte) int64 {
	msgs, _ := syscall.ParseSocketControlMessage(oob)
	for _, m := range msgs {
		if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			return int64(binary.NativeEndian.Uint64(m.Data[:8]))*1e9 + int64(binary.NativeEndian.Uint64(m.Data[8:16]))
		}
	}
	return 0
}

// packet reads an Ethernet/IPv4/TCP frame and pairs requests with their
// answers by the client's port.
func (c *wireCapture) packet(b []byte, at int64) {
	if len(b) < 14+20 || binary.BigEndian.Uint16(b[12:14]) != 0x0800 {
		return
	}
	ip := b[14:]
	ihl := int(ip[0]&0x0f) * 4
	if ip[9] != syscall.IPPROTO_TCP || len(ip) < ihl+20 {
		return
	}
	total := int(binary.BigEndian.Uint16(ip[2:4]))
	tcp := ip[ihl:]
	src, dst := binary.BigEndian.Uint16(tcp[0:2]), binary.BigEndian.Uint16(tcp[2:4])
	if total-ihl-int(tcp[12]>>4)*4 <= 0 {
		return // no data: a handshake or an acknowledgement
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case dst == c.port:
		if _, ok := c.pending[src]; !ok {
			c.pending[src] = at
		}
	case src == c.port:
		if sent, ok := c.pending[dst]; ok {
			c.lat = append(c.lat, time.Duration(at-sent))
			delete(c.pending, dst)
		}
	}
}

// finish stops the capture and returns the wire's latencies, sorted.
func (c *wireCapture) finish() []time.Duration {
	close(c.stop)
	<-c.done
	syscall.Close(c.fd)
	slices.Sort(c.lat)
	return c.lat
}

// pinAll moves every thread of the process to cpu (new threads inherit
// it) and returns the function that puts back the former set.
func pinAll(t testing.TB, cpu int) func() {
	t.Helper()
	var old [16]uint64
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, uintptr(len(old)*8), uintptr(unsafe.Pointer(&old))); e != 0 {
		t.Fatal(e)
	}
	var mask [16]uint64
	mask[cpu/64] = 1 << (cpu % 64)
	setAll(&mask)
	return func() { setAll(&old) }
}

func setAll(mask *[16]uint64) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		panic(err) // /proc is Linux's own: it is there
	}
	for _, e := range tasks {
		var tid int
		for _, ch := range e.Name() {
			tid = tid*10 + int(ch-'0')
		}
		// A thread that ended meanwhile is no matter.
		syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), uintptr(len(mask)*8), uintptr(unsafe.Pointer(mask)))
	}
}
