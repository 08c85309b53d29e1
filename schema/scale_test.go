package schema

import (
	"fmt"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/scaletest"
)

// BenchmarkLoadScale measures Load (parse, compile with jsonschema/v5,
// model, analysis) of the official 2025-11-25 schema plus 100, 400 and
// 1,600 extra definitions of 50 properties each: time and memory per
// definition must stay flat (linear growth).
func BenchmarkLoadScale(b *testing.B) {
	for _, n := range []int{100, 400, 1600} {
		data, err := scaletest.Schema("2025-11-25", n, 50)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("defs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := LoadBytes("scale.json", data, Options{Revision: "2025-11-25"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
