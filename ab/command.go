package ab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Command is a server the experiment starts and stops itself.
type Command struct {
	// Line is run by sh -c; each {port} in it becomes a free loopback
	// port, and the server's URL is http://127.0.0.1:PORT plus Path.
	Line string
	Path string // "/mcp" when empty
	// URL, when set, is the server's URL instead (a Line without {port}
	// that listens where it is told to).
	URL string
	Log string // file for the server's stdout and stderr (appended)
	// Ready is polled until it returns nil, ReadyTimeout passes (default
	// 30 s) or the server exits. Default: TCPReady. An MCP handshake or a
	// health URL (HealthReady) plugs in here.
	Ready        func(ctx context.Context, s *Server) error
	ReadyTimeout time.Duration
	Dir          string
	Env          []string // added to this process's environment
}

// Server is a server started from a Command.
type Server struct {
	URL  string
	Port int // 0 when the Line had no {port}
	Pid  int
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done is closed
}

// tries is how often Start starts a server whose port was taken between
// being chosen and being bound (by another program on the machine).
const tries = 3

// Start starts c and waits until it is ready. A server that exits before
// it is ready is started again on another port, up to three times.
func Start(ctx context.Context, c Command) (*Server, error) {
	if strings.TrimSpace(c.Line) == "" {
		return nil, errors.New("no command")
	}
	if !strings.Contains(c.Line, "{port}") && c.URL == "" {
		return nil, errors.New("the command needs a {port} to fill or a URL to be reached at")
	}
	if c.Ready == nil {
		c.Ready = TCPReady
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = 30 * time.Second
	}
	var err error
	for range tries {
		var s *Server
		if s, err = c.start(); err != nil {
			return nil, err
		}
		if err = s.waitReady(ctx, c); err == nil {
			return s, nil
		}
		_ = s.Stop()
		if s.exited() == nil || !strings.Contains(c.Line, "{port}") {
			break // not a lost port: starting again would not help
		}
	}
	return nil, err
}

// start starts the process once on a fresh port.
func (c Command) start() (*Server, error) {
	s := &Server{done: make(chan struct{})}
	line := c.Line
	if strings.Contains(line, "{port}") {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s.Port = port
		line = strings.ReplaceAll(line, "{port}", strconv.Itoa(port))
	}
	s.URL = c.URL
	if s.URL == "" && s.Port != 0 {
		path := c.Path
		if path == "" {
			path = "/mcp"
		}
		s.URL = "http://127.0.0.1:" + strconv.Itoa(s.Port) + path
	}
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	if c.Log != "" {
		f, err := os.OpenFile(c.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("server log: %w", err)
		}
		s.log = f
		cmd.Stdout, cmd.Stderr = f, f
	}
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		s.closeLog()
		return nil, fmt.Errorf("starting %q: %w", line, err)
	}
	s.cmd, s.Pid = cmd, cmd.Process.Pid
	go func() {
		s.err = cmd.Wait()
		s.closeLog()
		close(s.done)
	}()
	return s, nil
}

// waitReady polls c.Ready every 50 ms.
func (s *Server) waitReady(ctx context.Context, c Command) error {
	ctx, cancel := context.WithTimeout(ctx, c.ReadyTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		err := c.Ready(ctx, s)
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("server exited before it was ready (%v)%s", s.err, s.logHint(c.Log))
		case <-ctx.Done():
			return fmt.Errorf("server not ready after %s: %v%s", c.ReadyTimeout, err, s.logHint(c.Log))
		case <-tick.C:
		}
	}
}

func (s *Server) logHint(log string) string {
	if log == "" {
		return ""
	}
	return "; its output is in " + log
}

// exited is the process's exit once it has exited, else nil.
func (s *Server) exited() error {
	select {
	case <-s.done:
		if s.err == nil {
			return errors.New("exit status 0")
		}
		return s.err
	default:
		return nil
	}
}

// Target is the server as an experiment's side, its CPU read from /proc
// over its whole process tree (when /proc can read it).
func (s *Server) Target() Target {
	t := Target{URL: s.URL}
	if tree, err := NewProcTree(s.Pid); err == nil {
		t.CPU = tree
	}
	return t
}

// Stop ends the server's process group: SIGTERM, then SIGKILL after 5 s.
func (s *Server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	select {
	case <-s.done:
		return nil
	default:
	}
	terminate(s.cmd)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		kill(s.cmd)
		<-s.done
	}
	return nil
}

func (s *Server) closeLog() {
	if s.log != nil {
		_ = s.log.Close()
	}
}

// TCPReady is ready when the server's port (or its URL's host) accepts a
// connection.
func TCPReady(ctx context.Context, s *Server) error {
	addr := "127.0.0.1:" + strconv.Itoa(s.Port)
	if s.Port == 0 {
		host, err := hostOf(s.URL)
		if err != nil {
			return err
		}
		addr = host
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return conn.Close()
}

// HealthReady is ready when url (its {port} replaced by the server's port)
// answers a GET with a 2xx status.
func HealthReady(url string) func(context.Context, *Server) error {
	return func(ctx context.Context, s *Server) error {
		u := strings.ReplaceAll(url, "{port}", strconv.Itoa(s.Port))
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s answered %s", u, resp.Status)
		}
		return nil
	}
}

// freePort asks the kernel for a free loopback port. It is free when
// chosen; another program may take it before the server binds it, which
// Start survives by starting again.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// hostOf is the host:port of an http URL.
func hostOf(raw string) (string, error) {
	u, err := neturl.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "80"), nil
	}
	return u.Host, nil
}
