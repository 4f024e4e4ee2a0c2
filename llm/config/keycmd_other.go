//go:build !unix

package config

import "os/exec"

// ownGroup leaves cmd as it is: process groups are a Unix notion (on Windows, the
// timeout kills the command's shell only).
func ownGroup(*exec.Cmd) {}

// killGroup does nothing where process groups do not exist.
func killGroup(*exec.Cmd) error { return nil }
