//go:build !linux

package h1

import (
	"errors"
	"net"
)

// stampReader: receive stamps need Linux; elsewhere reads are plain.
type stampReader struct{}

func newStampReader(net.Conn) *stampReader { return nil }

func (*stampReader) read([]byte) (int, int64, error) {
	return 0, 0, errors.New("h1: receive stamps need Linux")
}

func holdStamps() func() { return func() {} }
