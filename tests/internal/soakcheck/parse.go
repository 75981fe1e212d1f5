package soakcheck

import (
	"bytes"
	"encoding/json"
	"errors"
)

// rec is the part of a record the checker reads; every other field is
// ignored.
type rec struct {
	proc      []byte
	pid       int64
	machineID int64
	hasMID    bool
	id        []byte // decimal digits
	kind      []byte
	masked    bool
	event     []byte
	fault     []byte
	target    []byte
	run       []byte
	t, t0, t1 int64
	hasT      bool
	hasT0     bool
	hasT1     bool
	end       int64
	done      int64 // an acquired or renewed event's reply time
	lease     int64 // its lease duration (ns)
	safe      int64 // how much of the lease may be used (ns)
	offset    int64 // a clock event's offset (ns)
	detail    []byte
}

var errSyntax = errors.New("soakcheck: malformed record")

// parse reads one flat JSON object. It handles the records soakrec
// writes (and any flat object of strings, numbers, booleans and null)
// without allocating; anything else (escapes, nesting) goes through
// encoding/json.
func parse(line []byte, r *rec) error {
	*r = rec{}
	i := skip(line, 0)
	if i >= len(line) || line[i] != '{' {
		return errSyntax
	}
	i = skip(line, i+1)
	if i < len(line) && line[i] == '}' {
		return nil
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return errSyntax
		}
		ke := bytes.IndexByte(line[i+1:], '"')
		if ke < 0 {
			return errSyntax
		}
		key := line[i+1 : i+1+ke]
		if bytes.IndexByte(key, '\\') >= 0 {
			return parseSlow(line, r)
		}
		i = skip(line, i+2+ke)
		if i >= len(line) || line[i] != ':' {
			return errSyntax
		}
		i = skip(line, i+1)
		if i >= len(line) {
			return errSyntax
		}
		var str, num []byte
		isStr, isBool, bval := false, false, false
		switch c := line[i]; {
		case c == '"':
			ve := bytes.IndexByte(line[i+1:], '"')
			if ve < 0 {
				return errSyntax
			}
			str = line[i+1 : i+1+ve]
			if bytes.IndexByte(str, '\\') >= 0 {
				return parseSlow(line, r)
			}
			isStr = true
			i += 2 + ve
		case c == '{' || c == '[':
			return parseSlow(line, r)
		case c == 't' && bytes.HasPrefix(line[i:], []byte("true")):
			isBool, bval = true, true
			i += 4
		case c == 'f' && bytes.HasPrefix(line[i:], []byte("false")):
			isBool = true
			i += 5
		case c == 'n' && bytes.HasPrefix(line[i:], []byte("null")):
			i += 4
		default:
			j := i
			for j < len(line) && (line[j] == '-' || line[j] == '+' || line[j] == '.' || line[j] == 'e' || line[j] == 'E' || (line[j] >= '0' && line[j] <= '9')) {
				j++
			}
			if j == i {
				return errSyntax
			}
			num = line[i:j]
			i = j
		}
		if err := r.set(key, str, isStr, num, isBool, bval); err != nil {
			return err
		}
		i = skip(line, i)
		if i >= len(line) {
			return errSyntax
		}
		if line[i] == '}' {
			if skip(line, i+1) != len(line) {
				return errSyntax
			}
			return nil
		}
		if line[i] != ',' {
			return errSyntax
		}
		i = skip(line, i+1)
	}
}

func skip(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

func (r *rec) set(key, str []byte, isStr bool, num []byte, isBool, bval bool) error {
	n := func() (int64, error) {
		if num == nil {
			return 0, errSyntax
		}
		return atoi(num)
	}
	var err error
	switch string(key) {
	case "proc":
		if !isStr {
			return errSyntax
		}
		r.proc = str
	case "pid":
		r.pid, err = n()
	case "machine_id":
		r.machineID, err = n()
		r.hasMID = err == nil
	case "id":
		switch {
		case isStr:
			r.id = str
		case num != nil:
			r.id = num
		default:
			return errSyntax
		}
	case "kind":
		r.kind = str
	case "masked":
		r.masked = isBool && bval
	case "event":
		r.event = str
	case "fault":
		r.fault = str
	case "target":
		r.target = str
	case "run":
		r.run = str
	case "t":
		r.t, err = n()
		r.hasT = err == nil
	case "t0":
		r.t0, err = n()
		r.hasT0 = err == nil
	case "t1":
		r.t1, err = n()
		r.hasT1 = err == nil
	case "end":
		r.end, err = n()
	case "done":
		r.done, err = n()
	case "lease":
		r.lease, err = n()
	case "safe":
		r.safe, err = n()
	case "offset":
		r.offset, err = n()
	case "detail":
		r.detail = str
	}
	return err
}

// parseSlow is the general path for records with escapes or nested values.
func parseSlow(line []byte, r *rec) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return errSyntax
	}
	*r = rec{}
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) == nil {
			if err := r.set([]byte(k), []byte(s), true, nil, false, false); err != nil {
				return err
			}
			continue
		}
		var b bool
		if json.Unmarshal(v, &b) == nil {
			if err := r.set([]byte(k), nil, false, nil, true, b); err != nil {
				return err
			}
			continue
		}
		var num json.Number
		if json.Unmarshal(v, &num) == nil {
			if err := r.set([]byte(k), nil, false, []byte(num.String()), false, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// atoi parses a decimal int64 without allocating.
func atoi(b []byte) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, errSyntax
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errSyntax
		}
		v = v*10 + uint64(c-'0')
	}
	if v > 1<<63-1 {
		return 0, errSyntax
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}

// atou parses a decimal uint64 without allocating.
func atou(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}
