package websearch

import (
	"context"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/store"
)

// BenchmarkCacheHit is a repeated search answered from the SQLite cache, through the real
// settings service on the same database (every setting the search reads is read from
// SQLite, as in the app). It reports the median and the 99th percentile per search.
func BenchmarkCacheHit(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	st := settings.New(db, events.NewBus(), Specs()...)
	serper := serve(b, Serper, "https://go.dev/", "https://pkg.go.dev/", "https://go.dev/doc/")
	for k, v := range map[string]any{SettingProvider: Serper, EndpointSetting(Serper): serper.URL} {
		if _, err := st.Set(ctx, k, v); err != nil {
			b.Fatal(err)
		}
	}
	svc := NewService(Deps{Settings: st, Secrets: fakeSecrets{"websearch.serper": "k"}, Cache: NewCache(db), HTTP: &http.Client{}})
	r := Request{Query: "golang generics", Options: Options{Count: 3}}
	if _, err := svc.Search(ctx, r); err != nil {
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		ans, err := svc.Search(ctx, r)
		times = append(times, time.Since(start))
		if err != nil || !ans.Cached {
			b.Fatalf("not a cache hit: %v", err)
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
	if n := serper.hits.Load(); n != 1 {
		b.Fatalf("%d requests", n)
	}
}
