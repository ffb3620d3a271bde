//go:build !linux

package evloop

import (
	"context"
	"errors"
	"net"
	"time"
)

// Available says whether event loops run on this system: they need epoll.
const Available = false

// Group stands in for the Linux one; NewGroup always fails.
type Group struct{}

// Loop stands in for the Linux one.
type Loop struct{}

var errUnavailable = errors.New("evloop: event loops need Linux")

func NewGroup(int, <-chan struct{}) (*Group, error)             { return nil, errUnavailable }
func (g *Group) Size() int                                      { return 0 }
func (g *Group) Go(context.Context, int, func(context.Context)) {}
func (g *Group) Run()                                           {}
func (g *Group) Close()                                         {}
func (g *Group) Loop(int) *Loop                                 { return nil }
func (l *Loop) Dial(string, time.Time) (net.Conn, error)        { return nil, errUnavailable }
func (l *Loop) Adopt(net.Conn) (net.Conn, error)                { return nil, errUnavailable }
func (l *Loop) Go(func())                                       {}
func (l *Loop) SleepUntil(context.Context, time.Time) bool      { return false }
func (l *Loop) After(context.Context, time.Time, func(bool))    {}
func (l *Loop) Deep(fn func())                                  { fn() }
func (l *Loop) All(fns ...func()) {
	for _, fn := range fns {
		fn()
	}
}
