package mcpsrc

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// expand replaces variable references in every string s is started with:
// command, args, env values, cwd, url and header values. The forms are
// those hosts write:
//
//	${VAR}, ${env:VAR}   the variable's value; unset is an error
//	${VAR:-default}      the value, or default when unset or empty
//	${workspaceFolder}   the project folder: the config file's folder, or
//	                     its parent for a file inside .vscode or .cursor
//
// Any other ${...} form (VS Code's ${input:...}) is an error naming it,
// since intentsrv has nobody to prompt.
func (s *Server) expand(dir string, getenv func(string) string) error {
	x := expander{server: s.Name, dir: dir, getenv: getenv}
	s.Command = x.do("command", s.Command)
	for i := range s.Args {
		s.Args[i] = x.do(fmt.Sprintf("args[%d]", i), s.Args[i])
	}
	// Keys in order: the first error (x.err) is the same every time.
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		s.Env[k] = x.do("env."+k, s.Env[k])
	}
	s.Cwd = x.do("cwd", s.Cwd)
	s.URL = x.do("url", s.URL)
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		s.Headers[k] = x.do("headers."+k, s.Headers[k])
	}
	return x.err
}

type expander struct {
	server string
	dir    string
	getenv func(string) string
	err    error // the first error
}

func (x *expander) do(field, s string) string {
	if x.err != nil || !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			x.err = &ConfigError{Code: CodeServerInvalid, Server: x.server,
				Message: fmt.Sprintf("%s: %q opens ${ without a closing }", field, s), Fix: "close the reference: ${NAME}"}
			return s
		}
		b.WriteString(s[:i])
		v, err := x.resolve(field, s[i+2:i+j])
		if err != nil {
			x.err = err
			return s
		}
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

func (x *expander) resolve(field, ref string) (string, error) {
	name, def, hasDef := strings.Cut(ref, ":-")
	switch {
	case name == "workspaceFolder":
		return workspace(x.dir), nil
	case strings.HasPrefix(name, "env:"):
		name = strings.TrimPrefix(name, "env:")
	case strings.Contains(name, ":"):
		return "", &ConfigError{Code: CodeVariableUnknown, Server: x.server,
			Message: fmt.Sprintf("%s: ${%s} cannot be resolved by intentsrv (it has no one to prompt)", field, ref),
			Fix:     "replace it with ${env:NAME} and set NAME in intentsrv's environment"}
	}
	if name == "" || strings.ContainsAny(name, " \t$") {
		return "", &ConfigError{Code: CodeServerInvalid, Server: x.server,
			Message: fmt.Sprintf("%s: ${%s} is not a variable reference", field, ref), Fix: "write ${NAME} or ${env:NAME}"}
	}
	v := x.getenv(name)
	if v == "" && hasDef {
		return def, nil
	}
	if v == "" {
		return "", &ConfigError{Code: CodeVariableUnset, Server: x.server,
			Message: fmt.Sprintf("%s uses ${%s}, and %s is not set", field, ref, name),
			Fix:     fmt.Sprintf("export %s before starting intentsrv, or write ${%s:-default}", name, name)}
	}
	return v, nil
}

// workspace is the project folder of a config file in dir.
func workspace(dir string) string {
	switch filepath.Base(dir) {
	case ".vscode", ".cursor":
		return filepath.Dir(dir)
	}
	return dir
}
