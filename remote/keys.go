package remote

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// EnvKeyPrefix starts the names of environment variables that carry API
// keys: INTENTSRV_API_KEY_CI=secret gives principal "ci" the key "secret".
const EnvKeyPrefix = "INTENTSRV_API_KEY_"

// MinKeyBytes is the shortest raw API key accepted: shorter keys can be
// guessed over the network.
const MinKeyBytes = 16

var principalName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// Keys maps bearer API keys to principal names. Only SHA-256 digests of the
// keys are kept, and a lookup compares the presented key's digest with every
// stored digest in constant time, so neither timing nor a memory dump tells
// a key. The zero value holds no key. A Keys is read-only after loading and
// safe for concurrent use.
type Keys struct {
	entries []keyEntry
}

type keyEntry struct {
	principal string
	digest    [sha256.Size]byte
}

// Len is the number of keys.
func (k *Keys) Len() int { return len(k.entries) }

// Principals returns the distinct principal names, sorted.
func (k *Keys) Principals() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range k.entries {
		if !seen[e.principal] {
			seen[e.principal] = true
			out = append(out, e.principal)
		}
	}
	sort.Strings(out)
	return out
}

// Lookup returns the principal the key belongs to. It takes the same time
// whichever key matches, or none.
func (k *Keys) Lookup(key string) (principal string, ok bool) {
	d := sha256.Sum256([]byte(key))
	match := -1
	for i := range k.entries {
		if subtle.ConstantTimeCompare(d[:], k.entries[i].digest[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return "", false
	}
	return k.entries[match].principal, true
}

// add records one key for principal; secret is a raw key or
// "sha256:<64 hex digits>", the digest of one.
func (k *Keys) add(principal, secret, where string) error {
	if !principalName.MatchString(principal) {
		return fmt.Errorf("%s: principal %q must be 1-64 characters of a-z, 0-9, '_', '.', '-', starting with a letter or digit", where, principal)
	}
	var e keyEntry
	e.principal = principal
	if hexDigest, ok := strings.CutPrefix(secret, "sha256:"); ok {
		b, err := hex.DecodeString(hexDigest)
		if err != nil || len(b) != sha256.Size {
			return fmt.Errorf("%s: a sha256: key must be 64 hex digits (the output of: printf %%s KEY | sha256sum)", where)
		}
		copy(e.digest[:], b)
	} else {
		if len(secret) < MinKeyBytes {
			return fmt.Errorf("%s: the key of %q is %d bytes; it needs at least %d, e.g. the output of: openssl rand -base64 32", where, principal, len(secret), MinKeyBytes)
		}
		e.digest = sha256.Sum256([]byte(secret))
	}
	for _, old := range k.entries {
		if old.digest == e.digest {
			return fmt.Errorf("%s: the key of %q is already the key of %q; every key must name one principal", where, principal, old.principal)
		}
	}
	k.entries = append(k.entries, e)
	return nil
}

// LoadKeysFile adds the keys of a keys file: one "PRINCIPAL KEY" pair per
// line, where KEY is the raw key or "sha256:" and its hex digest; blank
// lines and lines starting with "#" are ignored. Errors name the line but
// never show a key.
func (k *Keys) LoadKeysFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("keys file: %w", err)
	}
	defer f.Close()
	return k.readKeys(f, path)
}

func (k *Keys) readKeys(r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		where := fmt.Sprintf("%s:%d", name, n)
		if len(fields) != 2 {
			return fmt.Errorf("%s: want \"PRINCIPAL KEY\" (two fields), got %d fields", where, len(fields))
		}
		if err := k.add(fields[0], fields[1], where); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("keys file %s: %w", name, err)
	}
	return nil
}

// LoadKeysEnv adds a key for every environment entry (as os.Environ
// returns them) named EnvKeyPrefix+NAME; the principal is NAME in lower
// case.
func (k *Keys) LoadKeysEnv(environ []string) error {
	for _, kv := range environ {
		name, secret, _ := strings.Cut(kv, "=")
		suffix, ok := strings.CutPrefix(name, EnvKeyPrefix)
		if !ok {
			continue
		}
		if err := k.add(strings.ToLower(suffix), secret, "environment variable "+name); err != nil {
			return err
		}
	}
	return nil
}
