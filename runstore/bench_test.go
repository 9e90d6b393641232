package runstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/intentsrv/intentsrv/internal/redistest"
	"github.com/intentsrv/intentsrv/runs"
	"github.com/intentsrv/intentsrv/runstore"
)

// benchStores opens one store of each kind, side by side, for one run of
// go test -bench.
func benchStores(b *testing.B) map[string]runs.Store {
	srv := redistest.Start(b)
	bolt, err := runstore.OpenBolt(filepath.Join(b.TempDir(), "runs.db"), runstore.BoltOptions{MaxRecords: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bolt.Close() })
	rdb, err := runstore.OpenRedis(context.Background(), srv.URL(), runstore.RedisOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rdb.Close() })
	return map[string]runs.Store{
		"memory": runs.NewMemoryStore(runs.MemoryOptions{MaxRecords: 1 << 20}),
		"bolt":   bolt,
		"redis":  rdb,
	}
}

func benchRecord(i int, result json.RawMessage) runs.Record {
	now := time.Now()
	return runs.Record{ID: fmt.Sprintf("run_%022d", i), Principal: "principal", Operation: "namespace.operation",
		State: runs.StateSucceeded, StartedAt: now, FinishedAt: now, ExpiresAt: now.Add(time.Hour),
		Progress: &runs.Progress{Done: 7, Total: 7, Message: "done"}, Result: result}
}

// BenchmarkStoreSaveLoad: one Save of a finished run with a 1 KiB result
// (a typical budgeted envelope), and one Load of it, per store. Saves
// cycle over 1000 ids, so every store holds the same 1000 runs however
// many iterations run.
func BenchmarkStoreSaveLoad(b *testing.B) {
	result := json.RawMessage(`"` + strings.Repeat("x", 1022) + `"`)
	ctx := context.Background()
	for _, name := range []string{"memory", "bolt", "redis"} {
		stores := benchStores(b)
		s := stores[name]
		b.Run("save/"+name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if err := s.Save(ctx, benchRecord(i%1000, result)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("load/"+name, func(b *testing.B) {
			if err := s.Save(ctx, benchRecord(0, result)); err != nil {
				b.Fatal(err)
			}
			id := benchRecord(0, nil).ID
			for b.Loop() {
				if _, err := s.Load(ctx, "principal", id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBoltDiskPerRun reports the file bytes one retained finished
// run costs, for 10 000 runs with a 1 KiB result and with none.
func BenchmarkBoltDiskPerRun(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{0, 1024} {
		b.Run(fmt.Sprintf("result=%dB", size), func(b *testing.B) {
			result := benchResult(size)
			const n = 10000
			for b.Loop() {
				path := filepath.Join(b.TempDir(), "runs.db")
				s, err := runstore.OpenBolt(path, runstore.BoltOptions{MaxRecords: 2 * n})
				if err != nil {
					b.Fatal(err)
				}
				before, _ := os.Stat(path)
				for i := range n {
					if err := s.Save(ctx, benchRecord(i, result)); err != nil {
						b.Fatal(err)
					}
				}
				s.Close()
				after, _ := os.Stat(path)
				b.ReportMetric(float64(after.Size()-before.Size())/n, "disk-B/run")
			}
		})
	}
}

// BenchmarkRedisMemoryPerRun reports the server memory (INFO
// used_memory) one retained finished run costs, record and index entry.
func BenchmarkRedisMemoryPerRun(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{0, 1024} {
		b.Run(fmt.Sprintf("result=%dB", size), func(b *testing.B) {
			result := benchResult(size)
			const n = 10000
			for b.Loop() {
				srv := redistest.Start(b)
				s, err := runstore.OpenRedis(ctx, srv.URL(), runstore.RedisOptions{})
				if err != nil {
					b.Fatal(err)
				}
				before := usedMemory(b, srv)
				for i := range n {
					if err := s.Save(ctx, benchRecord(i, result)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(usedMemory(b, srv)-before)/n, "redis-B/run")
				s.Close()
				srv.Kill()
			}
		})
	}
}

// usedMemory is the server's used_memory in bytes.
func usedMemory(b *testing.B, srv *redistest.Server) int64 {
	b.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
}

// benchResult is a JSON string result of size bytes, or none for 0.
func benchResult(size int) json.RawMessage {
	if size == 0 {
		return nil
	}
	return json.RawMessage(`"` + strings.Repeat("x", size-2) + `"`)
}
