package h1

import "testing"

// BenchmarkLendReader: a read buffer lent and given back, as each request
// on a connection that has not grown its own does, from every core at once.
func BenchmarkLendReader(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			giveBack(lendReader())
		}
	})
}
