package evloop

// SupportedOn says whether event loops run on the system goos names (a
// runtime.GOOS value): they are built on epoll, which only Linux has.
// Available is this for the system the binary was built for.
func SupportedOn(goos string) bool { return goos == "linux" }
