package main

import (
	"context"
	"fmt"
	"io"
)

// Placeholders until the gate, export and doctor commands land; each
// reports that it is not built yet and exits with the usage code.

func runGate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "intentsrv gate: not built yet")
	return exitUsage
}

func runExport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "intentsrv export: not built yet")
	return exitUsage
}

func runDoctor(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "intentsrv doctor: not built yet")
	return exitUsage
}
