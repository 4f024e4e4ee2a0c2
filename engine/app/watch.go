package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// WatchDebounce is how long Watch waits after a change before it reports one: an editor's
// save (write, rename, chmod) is one report.
const WatchDebounce = 150 * time.Millisecond

// Watch watches files (a context file's Sources) and sends on the returned channel once
// after each burst of changes to any of them, WatchDebounce after the last. It watches
// their folders, not the files, so a file an editor replaces by renaming is still seen,
// and a folder among paths (the skills folder) reports changes to anything under its
// direct subfolders too. The channel is closed when ctx ends; a report not yet received
// is kept (one at most), never blocking the watcher.
func Watch(ctx context.Context, paths []string) (<-chan struct{}, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch the context file: %w", err)
	}
	files := map[string]bool{} // the paths, cleaned
	dirs := map[string]bool{}  // folders watched
	under := map[string]bool{} // folders whose whole content counts (skills)
	add := func(dir string) error {
		if dirs[dir] {
			return nil
		}
		if err := w.Add(dir); err != nil {
			return fmt.Errorf("watch %s: %w", dir, err)
		}
		dirs[dir] = true
		return nil
	}
	for _, p := range paths {
		p = filepath.Clean(p)
		files[p] = true
		if err := add(filepath.Dir(p)); err != nil {
			w.Close()
			return nil, err
		}
	}
	// A folder among the paths (skills): it and its subfolders hold the files.
	for p := range files {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		under[p] = true
		subs := []string{p}
		if entries, err := os.ReadDir(p); err == nil {
			for _, e := range entries {
				if e.IsDir() {
					subs = append(subs, filepath.Join(p, e.Name()))
				}
			}
		}
		for _, d := range subs {
			if err := add(d); err != nil {
				w.Close()
				return nil, err
			}
		}
	}
	relevant := func(name string) bool {
		name = filepath.Clean(name)
		d := filepath.Dir(name)
		return files[name] || under[d] || under[filepath.Dir(d)]
	}
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		defer w.Close()
		var timer *time.Timer
		var fire <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				if timer != nil {
					timer.Stop()
				}
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if !relevant(ev.Name) {
					continue
				}
				if timer == nil {
					timer = time.NewTimer(WatchDebounce)
				} else {
					timer.Reset(WatchDebounce)
				}
				fire = timer.C
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			case <-fire:
				fire = nil
				select {
				case out <- struct{}{}:
				default: // one report is already waiting
				}
			}
		}
	}()
	return out, nil
}
