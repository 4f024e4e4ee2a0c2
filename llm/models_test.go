package llm

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestModels(t *testing.T) {
	tests := []struct {
		name   string
		handle func(w http.ResponseWriter, r *http.Request, n int)
		want   []string
		err    string
	}{
		{"list", func(w http.ResponseWriter, r *http.Request, n int) {
			if r.URL.Path != "/v1/models" || r.Method != http.MethodGet {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(`{"object":"list","data":[{"id":"llama3.2:3b","object":"model"},{"id":"gpt-4o","object":"model"}]}`))
		}, []string{"gpt-4o", "llama3.2:3b"}, ""},
		{"retried 503", func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Write([]byte(`{"data":[{"id":"m"}]}`))
		}, []string{"m"}, ""},
		{"404", func(w http.ResponseWriter, r *http.Request, n int) {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("404 page not found"))
		}, nil, "404 Not Found from URL: 404 page not found"},
		{"not json", func(w http.ResponseWriter, r *http.Request, n int) {
			w.Write([]byte("<html>"))
		}, nil, "invalid response from URL"},
		{"hang", func(w http.ResponseWriter, r *http.Request, n int) {
			<-r.Context().Done()
		}, nil, "no response after 50ms from URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, _ map[string]any) { tt.handle(w, r, n) })
			c, _ := newTestClient(srv.URL, func(o *Options) { o.FirstTokenTimeout = 50 * time.Millisecond })
			got, err := c.Models(context.Background())
			if tt.err != "" {
				want := strings.ReplaceAll(tt.err, "URL", srv.URL+"/v1")
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("got %v, want an error starting %q", err, want)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v %v, want %v", got, err, tt.want)
			}
		})
	}
}
