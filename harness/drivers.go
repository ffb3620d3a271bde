package harness

import "github.com/mcpbench/mcpbench/internal/evloop"

// EventLoopsOn says whether a build for goos has the event-loop driver:
// only Linux does (epoll); elsewhere --driver auto and loops run the
// workers on goroutines. A function of GOOS so `mcpbench version` can say
// it and a test can check it for the other systems.
func EventLoopsOn(goos string) bool { return evloop.SupportedOn(goos) }
