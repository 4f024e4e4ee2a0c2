package main

import (
	"bytes"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyDatabase is issue 22 item 9, in real processes: a database in a folder the
// user may not write could not be read at all ("read schema version: database is
// read-only"), and one in a file the user may not write left its log's files (-wal,
// -shm) behind. The commands that only read (chats, with --search too, branches, replay,
// export) read both as they read a writable database, and leave the folder as it was; a
// command that writes says the database is read-only.
//
// Tests run as root here and in CI, and permissions do not stop root: as root the
// commands run as the user nobody; a folder root itself may not write is made with
// chattr +i where the file system allows it.
func TestReadOnlyDatabase(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix permissions")
	}
	bin := buildCtxlab(t)
	isolateCtxlabEnv(t)
	src := replayFixture(t)
	mustRunCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", src) // a second chat on main: unindexed messages

	// Reading a writable copy gives what each command should print.
	reads := [][]string{
		{"chats"}, {"chats", "--search", "refund"}, {"chats", "--search", "figures table"}, {"chats", "--json"},
		{"branches", "branching-1"}, {"replay", "demo-1"}, {"replay", "branching-1", "--json"},
		{"export", "demo-1", "--format", "json"}, {"export", "branching-1", "--format", "markdown"},
	}

	root := os.Geteuid() == 0
	var cred *syscall.Credential
	var uid, gid int
	if root {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Skipf("running as root, and no user nobody to run as: %v", err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
	}
	// Everything the command reads must be readable by it: the binary, a home of its own.
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin)), base, filepath.Dir(base)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(base, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CTXLAB_CONFIG=" + cfg,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data")}
	run := func(c *syscall.Credential, db string, args ...string) (int, string, string) {
		cmd := exec.Command(bin, append(args, "--db", db)...)
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		return cmd.ProcessState.ExitCode(), normaliseIDs(stdout.String()), stderr.String()
	}
	copyDB := func(dir string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "ctxlab.db")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if root {
			if err := os.Chown(dir, uid, gid); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(p, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	writable := copyDB(filepath.Join(base, "writable"))
	want := make([]string, len(reads))
	for i, args := range reads {
		code, out, stderr := run(cred, writable, args...)
		if code != 0 {
			t.Fatalf("%s on a writable database: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		want[i] = out
	}

	type setup struct {
		name string
		cred *syscall.Credential
		make func(t *testing.T, db string) // makes db read-only for the command
	}
	setups := []setup{
		{"a folder it may not write", cred, func(t *testing.T, db string) {
			if err := os.Chmod(filepath.Dir(db), 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(filepath.Dir(db), 0o755) })
		}},
		{"a file it may not write", cred, func(t *testing.T, db string) {
			if err := os.Chmod(db, 0o444); err != nil {
				t.Fatal(err)
			}
			if root {
				if err := os.Chown(db, 0, 0); err != nil { // root's: nobody may not write it
					t.Fatal(err)
				}
			}
		}},
	}
	if root {
		setups = append(setups, setup{"a folder root may not write (chattr +i)", nil, func(t *testing.T, db string) {
			dir := filepath.Dir(db)
			if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
				t.Skipf("chattr +i: %v %s", err, out)
			}
			t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
		}})
	}
	for i, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			db := copyDB(filepath.Join(base, "ro-"+strconv.Itoa(i)))
			s.make(t, db)
			dir := filepath.Dir(db)
			files := func() []string {
				es, _ := os.ReadDir(dir)
				var out []string
				for _, e := range es {
					out = append(out, e.Name())
				}
				return out
			}
			before, _ := os.ReadFile(db)
			for i, args := range reads {
				code, out, stderr := run(s.cred, db, args...)
				if code != 0 || out != want[i] {
					t.Errorf("%s: exit %d, stderr %q; output as on a writable database: %v", strings.Join(args, " "), code, stderr, out == want[i])
				}
				if got := files(); !slices.Equal(got, []string{"ctxlab.db"}) {
					t.Fatalf("%s left %v in the folder, want ctxlab.db alone", strings.Join(args, " "), got)
				}
			}
			code, _, stderr := run(s.cred, db, "run", "testdata/demo/support.script.yaml")
			if code != 1 || !strings.Contains(stderr, "read-only") {
				t.Errorf("run: exit %d, stderr %q; want 1 and read-only", code, stderr)
			}
			if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
				t.Error("the database file changed")
			}
			if got := files(); !slices.Equal(got, []string{"ctxlab.db"}) {
				t.Errorf("the folder holds %v, want ctxlab.db alone", got)
			}
		})
	}
}
