package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// sniff reads the start of the existing regular file at path (fi its stat). It reports
// whether the file is empty, and an error, wrapping ErrSchema, that says what the file is
// when it is not a SQLite database. A file whose size is 0 but whose database is in its
// log (a new database whose first commits were never copied back) is not empty.
func sniff(path string, fi fs.FileInfo) (empty bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	const look = 48
	buf := make([]byte, look)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	buf = buf[:n]
	switch {
	case n == 0:
		if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
			return false, nil
		}
		return true, nil
	case bytes.HasPrefix(buf, sqliteHeader):
		return false, nil
	}
	what := "it does not start as a SQLite database does"
	text := bytes.TrimRight(buf, "\x00")
	for n == look && len(text) > look-utf8.UTFMax && !utf8.Valid(text) {
		text = text[:len(text)-1] // a character cut at the end of what was read
	}
	if utf8.Valid(text) && printable(text) {
		s := string(text)
		if n == look || len(s) > 24 { // more follows
			s = strings.ToValidUTF8(s[:min(len(s), 24)], "") + "…"
		}
		what = fmt.Sprintf("it holds text (%q)", s)
	}
	if fi.Size() == 0 {
		// /proc and /sys: files the kernel writes as they are read, whose size is 0.
		what += ", though its size is 0 (a file made as it is read, as in /proc)"
	}
	return false, &storeError{msg: "not a database file: " + what, kind: ErrSchema}
}

// printable reports whether b holds no control character but tab and line breaks.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}
