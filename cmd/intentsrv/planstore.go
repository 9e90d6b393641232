package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

// filePlanStore is the CLI's PlanStore: each "intentsrv act" is its own
// process, so the record of executed plan_refs lives in a file beside the
// CLI's plan key, guarded by an exclusive lock. Lines are "REF EXPIRY".
type filePlanStore struct {
	path string
	now  func() time.Time
}

// Consume implements intent.PlanStore.
func (f *filePlanStore) Consume(_ context.Context, ref string, expires time.Time) error {
	file, err := os.OpenFile(f.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open plan record: %w", err)
	}
	defer file.Close()
	if err := syscall.Flock(int(file.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock plan record: %w", err)
	}
	defer syscall.Flock(int(file.Fd()), syscall.LOCK_UN)

	now := f.now()
	var keep []string
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		r, exp, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		sec, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || now.After(time.Unix(sec, 0)) {
			continue // expired or garbled: forget it
		}
		if r == ref {
			return intent.ErrPlanUsed
		}
		keep = append(keep, sc.Text())
	}
	keep = append(keep, ref+" "+strconv.FormatInt(expires.Unix(), 10))
	if err := file.Truncate(0); err != nil {
		return fmt.Errorf("rewrite plan record: %w", err)
	}
	if _, err := file.WriteAt([]byte(strings.Join(keep, "\n")+"\n"), 0); err != nil {
		return fmt.Errorf("rewrite plan record: %w", err)
	}
	return file.Sync()
}
