package openapi

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestLargeAnswerIsReadOnce: a large JSON answer costs about its size on
// the way in, not its size several times over (the old path grew a buffer
// by doubling, then copied the body to a string and back to bytes for
// redaction even when it held no secret).
func TestLargeAnswerIsReadOnce(t *testing.T) {
	var body bytes.Buffer
	body.WriteString(`{"items":[`)
	for i := 0; body.Len() < 4<<20; i++ {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"id":%d,"name":"item %d","note":"nothing secret here"}`, i, i)
	}
	body.WriteString(`]}`)
	answer := body.Bytes()
	for _, tc := range []struct {
		name      string
		announced bool
		maxPerB   float64 // bytes allocated per byte of answer
	}{
		{"length announced", true, 1.25},
		{"chunked", false, 2.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tc.announced {
					w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
				}
				w.Write(answer)
			}))
			defer srv.Close()
			reg, _ := trackerOps(t, srv.URL, BindOptions{})
			if _, err := call(t, reg, "tracker.projects.get", `{"projectId":"prj_1"}`); err != nil {
				t.Fatal(err) // warms the connection
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, err := call(t, reg, "tracker.projects.get", `{"projectId":"prj_1"}`)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, answer) {
				t.Fatalf("the answer changed on the way: %d bytes in, %d out", len(answer), len(got))
			}
			if per := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(answer)); per > tc.maxPerB {
				t.Fatalf("reading a %d-byte answer allocated %.2f bytes per byte; want at most %.2f", len(answer), per, tc.maxPerB)
			}
		})
	}
}

// TestReadBody: readBody returns the whole body, or max+1 bytes of a longer
// one, whatever its announced length says.
func TestReadBody(t *testing.T) {
	body := strings.Repeat("0123456789", 1000)
	for _, tc := range []struct {
		announced, max int64
		want           int
	}{
		{-1, 1 << 20, 10000},
		{10000, 1 << 20, 10000},
		{10000, 5000, 5001},
		{-1, 5000, 5001},
		{20000, 1 << 20, 10000}, // announced more than sent
		{100, 1 << 20, 10000},   // announced less than sent
		{0, 1 << 20, 10000},
	} {
		got, err := readBody(io.NopCloser(strings.NewReader(body)), tc.announced, tc.max)
		if err != nil || len(got) != tc.want || string(got) != body[:tc.want] {
			t.Errorf("announced %d, max %d: got %d bytes, err %v; want %d", tc.announced, tc.max, len(got), err, tc.want)
		}
	}
}
