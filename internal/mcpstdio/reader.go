package mcpstdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// lineReader reads newline-delimited messages with a cap on their length.
// It keeps at most max+1 bytes of a line in memory: the rest of a longer
// line is read and discarded, so refusing an over-long message costs time
// linear in its length and memory bounded by the cap.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line ending. size is the line's
// full length in bytes; when size exceeds the cap, line holds only its
// first max bytes. The returned slice is valid until the next call. err is
// io.EOF once the input ends (a last line without a newline is returned
// first, with a nil error).
func (lr *lineReader) next() (line []byte, size int64, err error) {
	lr.buf = lr.buf[:0]
	newline := false
	for {
		chunk, rerr := lr.r.ReadSlice('\n')
		size += int64(len(chunk))
		if room := lr.max + 1 - len(lr.buf); room > 0 {
			lr.keep(chunk[:min(room, len(chunk))])
		}
		if rerr == bufio.ErrBufferFull {
			continue
		}
		if rerr == nil {
			newline = true
			break
		}
		if rerr == io.EOF && size > 0 {
			break
		}
		return nil, 0, rerr
	}
	if newline {
		size--
	}
	line = lr.buf[:min(int64(len(lr.buf)), size)]
	if n := len(line); size <= int64(lr.max) && n > 0 && line[n-1] == '\r' {
		line, size = line[:n-1], size-1
	}
	if size > int64(lr.max) {
		line = line[:lr.max]
	}
	return line, size, nil
}

// keep appends b to the line buffer, doubling its capacity (up to the
// cap) rather than letting append grow it by a quarter at a time, which
// would allocate five times the cap on the way there.
func (lr *lineReader) keep(b []byte) {
	if need := len(lr.buf) + len(b); need > cap(lr.buf) {
		grown := make([]byte, len(lr.buf), min(max(need, 2*cap(lr.buf)), lr.max+1))
		copy(grown, lr.buf)
		lr.buf = grown
	}
	lr.buf = append(lr.buf, b...)
}

// idFromPrefix recovers the id of a JSON-RPC message from the start of
// it, for answering a message too long to read whole. It walks the
// top-level object's members and returns the id's raw value when the id
// comes before the cut and is a valid one; otherwise nil.
func idFromPrefix(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key == "id" {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return nil
			}
			// A number cut by the cap would read as a shorter one: the
			// member must end within the prefix.
			rest := bytes.TrimLeft(prefix[dec.InputOffset():], " \t\r\n")
			if len(rest) == 0 || (rest[0] != ',' && rest[0] != '}') {
				return nil
			}
			if _, ok := parseID(raw); !ok {
				return nil
			}
			return raw
		}
		if skipValue(dec) != nil {
			return nil
		}
	}
	return nil
}

// skipValue consumes one JSON value from dec token by token, so a large
// member is skipped without being copied whole.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
