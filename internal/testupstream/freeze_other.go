//go:build !unix

package testupstream

// freeze blocks forever where SIGSTOP does not exist.
func freeze() { select {} }
