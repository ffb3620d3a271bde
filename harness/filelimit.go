package harness

import "fmt"

// A connection is an open file: a load that needs more connections than
// the process may have open fails part-way, with dial errors that read as
// the server's fault. It is refused before it starts instead.

// spareFiles is what the process keeps open besides the load's
// connections: standard streams, event loops, the profile and report files.
const spareFiles = 64

// CheckFiles refuses a load that opens conns connections (what flag names
// the load, for the message) when they do not fit the open-file limit,
// naming the limit and --shard. Where the limit is unknown it says yes.
func CheckFiles(conns int, what string) error {
	limit := fileLimit()
	if limit <= 0 || uint64(conns)+spareFiles <= limit {
		return nil
	}
	return fmt.Errorf("%s opens %d connections, past this process's open-file limit of %d (ulimit -Hn; %d kept for its own files): split the load over processes with --shard i/N",
		what, conns, limit, spareFiles)
}
