package openapi

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// AuthEnv names the environment variables that hold a source's
// credentials. Values are read from the environment only, never from a
// spec, a flag or a config file, and never appear in previews, errors or
// logs.
type AuthEnv struct {
	// Token holds a bearer token, used for http bearer, oauth2 and
	// openIdConnect schemes.
	Token string `yaml:"token_env,omitempty" json:"token_env,omitempty"`
	// APIKey holds the value of apiKey schemes.
	APIKey string `yaml:"api_key_env,omitempty" json:"api_key_env,omitempty"`
	// Username and Password hold http basic credentials.
	Username string `yaml:"username_env,omitempty" json:"username_env,omitempty"`
	Password string `yaml:"password_env,omitempty" json:"password_env,omitempty"`
	// Schemes overrides the variable per security scheme name: for a
	// bearer, oauth2, openIdConnect or apiKey scheme, the variable holding
	// its token or key.
	Schemes map[string]string `yaml:"schemes,omitempty" json:"schemes,omitempty"`
}

// DefaultAuthEnv is the naming used when a source does not name its
// variables: NAME_TOKEN, NAME_API_KEY, NAME_USERNAME and NAME_PASSWORD, with
// NAME the upper-cased source name.
func DefaultAuthEnv(source string) AuthEnv {
	p := strings.ToUpper(source)
	return AuthEnv{Token: p + "_TOKEN", APIKey: p + "_API_KEY", Username: p + "_USERNAME", Password: p + "_PASSWORD"}
}

// VarsFor names the environment variables that satisfy security scheme
// name of type sch under this naming: the per-scheme override when there
// is one, else the variable for the scheme's type (two for http basic). It
// returns nil for a scheme type intentsrv cannot fill.
func (e AuthEnv) VarsFor(name string, sch SecurityScheme) []string {
	if v, ok := e.Schemes[name]; ok {
		return []string{v}
	}
	switch {
	case sch.Type == "apiKey":
		return []string{e.APIKey}
	case (sch.Type == "http" && sch.Scheme == "basic") || sch.Type == "basic":
		return []string{e.Username, e.Password}
	case sch.Type == "http" || sch.Type == "oauth2" || sch.Type == "openIdConnect":
		return []string{e.Token}
	}
	return nil
}

// Credentials are the secret values found for one source.
type Credentials struct {
	token, apiKey, user, pass string
	schemes                   map[string]string
	env                       AuthEnv
}

// LoadCredentials reads the variables env names through getenv (os.Getenv
// in production).
func LoadCredentials(env AuthEnv, getenv func(string) string) Credentials {
	get := func(name string) string {
		if name == "" {
			return ""
		}
		return strings.TrimSpace(getenv(name))
	}
	c := Credentials{token: get(env.Token), apiKey: get(env.APIKey), user: get(env.Username), pass: get(env.Password), env: env}
	for scheme, name := range env.Schemes {
		if v := get(name); v != "" {
			if c.schemes == nil {
				c.schemes = map[string]string{}
			}
			c.schemes[scheme] = v
		}
	}
	return c
}

// secrets lists every secret value, in every encoding it can take on the
// way back to an agent, longest first, for redaction: as is; URL-encoded
// for a query or a path, with upper- and lower-case hex ("ab+cd/=" echoed
// as "ab%2Bcd%2F%3D"); JSON-escaped (including "\/" and \u escapes);
// and, for basic auth, "user:pass" in standard and URL-safe base64.
func (c Credentials) secrets() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if len(s) >= 4 && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	encodings := func(s string) {
		if len(s) < 4 {
			return
		}
		add(s)
		for _, e := range []string{url.QueryEscape(s), url.PathEscape(s)} {
			add(e)
			add(lowerPercentHex(e))
		}
		if j, err := json.Marshal(s); err == nil {
			js := string(j[1 : len(j)-1])
			add(js)
			add(strings.ReplaceAll(js, "/", `\/`))
		}
	}
	encodings(c.token)
	encodings(c.apiKey)
	encodings(c.pass)
	if c.user != "" || c.pass != "" {
		pair := []byte(c.user + ":" + c.pass)
		encodings(base64.StdEncoding.EncodeToString(pair))
		encodings(base64.URLEncoding.EncodeToString(pair))
		encodings(base64.RawStdEncoding.EncodeToString(pair))
	}
	for _, v := range c.schemes {
		encodings(v)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// lowerPercentHex rewrites the hex digits of percent escapes in lower case
// ("%2B" → "%2b"), as some servers echo them.
func lowerPercentHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for k := i + 1; k <= i+2; k++ {
				if b[k] >= 'A' && b[k] <= 'F' {
					b[k] += 'a' - 'A'
				}
			}
		}
	}
	return string(b)
}

// value returns the secret for one scheme.
func (c Credentials) value(name string, s SecurityScheme) string {
	if v, ok := c.schemes[name]; ok {
		return v
	}
	switch {
	case s.Type == "apiKey":
		return c.apiKey
	case s.Type == "http" && s.Scheme == "basic":
		if c.user == "" && c.pass == "" {
			return ""
		}
		return c.user + ":" + c.pass
	case s.Type == "http" || s.Type == "oauth2" || s.Type == "openIdConnect":
		return c.token
	}
	return ""
}

// hint names the variables that would satisfy an operation's security,
// for the remedy of an unauthorized answer.
func (c Credentials) hint(reqs []SecurityRequirement, schemes map[string]SecurityScheme) string {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, req := range reqs {
		for _, name := range req {
			if v, ok := c.env.Schemes[name]; ok {
				add(v)
				continue
			}
			s := schemes[name]
			switch {
			case s.Type == "apiKey":
				add(c.env.APIKey)
			case s.Type == "http" && s.Scheme == "basic":
				add(c.env.Username)
				add(c.env.Password)
			default:
				add(c.env.Token)
			}
		}
	}
	if len(names) == 0 {
		add(c.env.Token)
	}
	return strings.Join(names, ", ")
}

// authPart is one credential placed on a request.
type authPart struct {
	in, name, value string // in: header, query, cookie
}

// apply picks the first security requirement whose schemes all have
// credentials and returns the parts to add. No satisfiable requirement means
// no credentials are sent (the upstream then answers 401 and the remedy
// names the variables).
func (c Credentials) apply(reqs []SecurityRequirement, schemes map[string]SecurityScheme) []authPart {
	for _, req := range reqs {
		var parts []authPart
		ok := true
		for _, name := range req {
			s, known := schemes[name]
			v := c.value(name, s)
			if !known || v == "" {
				ok = false
				break
			}
			switch {
			case s.Type == "apiKey":
				in := s.In
				if in == "" {
					in = "header"
				}
				parts = append(parts, authPart{in: in, name: s.Name, value: v})
			case s.Type == "http" && s.Scheme == "basic":
				parts = append(parts, authPart{in: "header", name: "Authorization", value: "Basic " + base64.StdEncoding.EncodeToString([]byte(v))})
			case s.Type == "http" && s.Scheme != "bearer" && s.Scheme != "":
				parts = append(parts, authPart{in: "header", name: "Authorization", value: schemeTitle(s.Scheme) + " " + v})
			default:
				parts = append(parts, authPart{in: "header", name: "Authorization", value: "Bearer " + v})
			}
		}
		if ok {
			return parts
		}
	}
	return nil
}

func schemeTitle(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sensitiveHeader reports headers whose values are always redacted in
// previews, whatever their source.
func sensitiveHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token":
		return true
	}
	return false
}
