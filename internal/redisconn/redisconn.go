// Package redisconn opens the Redis or Valkey client a store URL names,
// the one syntax every intentsrv store flag accepts:
// redis://[USER:PASSWORD@]HOST:PORT[/DB] or rediss:// for TLS, with an
// optional query parameter prefix that namespaces the store's keys.
package redisconn

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrUnavailable marks an Open whose server did not answer, as opposed to
// a URL that cannot name one.
var ErrUnavailable = errors.New("unavailable")

// Conn is an open client, the key prefix the URL chose and where it points.
type Conn struct {
	Client *redis.Client
	Prefix string
	// Where is host:port/db, for messages: never the password.
	Where string
}

// Open parses rawURL, connects, and checks that the server answers
// PING. what names the store in errors ("run store"); defaultPrefix is
// the prefix when the URL has none. Errors never quote the password.
func Open(ctx context.Context, rawURL, what, defaultPrefix string) (*Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url's error quotes the URL, password included: leave it out.
		return nil, fmt.Errorf("the %s URL does not parse; use redis://[USER:PASSWORD@]HOST:PORT/DB", what)
	}
	prefix := defaultPrefix
	q := u.Query()
	if q.Has("prefix") {
		prefix = q.Get("prefix")
		q.Del("prefix")
		u.RawQuery = q.Encode()
	}
	opts, err := redis.ParseURL(u.String())
	if err != nil {
		return nil, fmt.Errorf("%s URL %s: %w; use redis://HOST:PORT/DB", what, u.Redacted(), err)
	}
	opts.DialTimeout = 2 * time.Second
	opts.ReadTimeout = 2 * time.Second
	opts.WriteTimeout = 2 * time.Second
	opts.ContextTimeoutEnabled = true
	c := &Conn{Client: redis.NewClient(opts), Prefix: prefix, Where: fmt.Sprintf("%s/%d", opts.Addr, opts.DB)}
	if err := c.Client.Ping(ctx).Err(); err != nil {
		c.Client.Close()
		return nil, fmt.Errorf("redis %s at %s is %w: %w", what, c.Where, ErrUnavailable, err)
	}
	return c, nil
}
