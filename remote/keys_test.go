package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeysFile(t *testing.T) {
	digest := sha256.Sum256([]byte("hashed-key-0123456789"))
	file := "# team keys\n\nalice " + keyAlice + "\n  bob   " + keyBob + "  \nci sha256:" + hex.EncodeToString(digest[:]) + "\nalice second-key-of-alice-0000\n"
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	var k Keys
	if err := k.LoadKeysFile(path); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		keyAlice: "alice", "second-key-of-alice-0000": "alice", keyBob: "bob", "hashed-key-0123456789": "ci",
	} {
		if got, ok := k.Lookup(key); !ok || got != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	for _, bad := range []string{"", keyAlice[:len(keyAlice)-1], keyAlice + "x", "sha256:" + hex.EncodeToString(digest[:])} {
		if p, ok := k.Lookup(bad); ok {
			t.Errorf("Lookup(%q) = %q", bad, p)
		}
	}
	if got := strings.Join(k.Principals(), ","); got != "alice,bob,ci" {
		t.Errorf("principals = %s", got)
	}
}

func TestKeysFileErrors(t *testing.T) {
	const secret = "short-secret"
	cases := map[string]string{
		"one field":          "alice\n",
		"three fields":       "alice " + keyAlice + " extra\n",
		"short key":          "alice " + secret + "\n",
		"bad principal":      "Alice! " + keyAlice + "\n",
		"bad digest":         "ci sha256:abcd\n",
		"key shared by two":  "alice " + keyAlice + "\nbob " + keyAlice + "\n",
		"line number counts": "# c\n\nalice\n",
	}
	for name, file := range cases {
		t.Run(name, func(t *testing.T) {
			var k Keys
			err := k.readKeys(strings.NewReader(file), "keys.txt")
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), keyAlice) || strings.Contains(err.Error(), secret) {
				t.Fatalf("error shows the key: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "keys.txt:") {
				t.Fatalf("error does not name the line: %v", err)
			}
		})
	}
	var k Keys
	if err := k.readKeys(strings.NewReader("# c\n\nalice\n"), "keys.txt"); !strings.HasPrefix(err.Error(), "keys.txt:3:") {
		t.Fatalf("line number: %v", err)
	}
}

func TestKeysEnv(t *testing.T) {
	var k Keys
	env := []string{"HOME=/x", EnvKeyPrefix + "CI_BOT=" + keyAlice, "INTENTSRV_PLAN_KEY=" + keyBob}
	if err := k.LoadKeysEnv(env); err != nil {
		t.Fatal(err)
	}
	if p, ok := k.Lookup(keyAlice); !ok || p != "ci_bot" {
		t.Fatalf("Lookup = %q, %v", p, ok)
	}
	if _, ok := k.Lookup(keyBob); ok || k.Len() != 1 {
		t.Fatal("a variable without the prefix became a key")
	}
	if err := k.LoadKeysEnv([]string{EnvKeyPrefix + "X=tiny"}); err == nil || strings.Contains(err.Error(), "tiny") {
		t.Fatalf("short env key: %v", err)
	}
}
