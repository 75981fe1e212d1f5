package cli

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/once-go/once/cmd/once/internal/msg"
)

// maxLine is the longest stdin line read in full; longer lines are invalid
// values (no ID spelling comes close) and are reported by their start.
const maxLine = 64 << 10

// valueFunc appends the output line for one VALUE to dst (without the
// newline), or returns why the value is invalid.
type valueFunc func(dst []byte, value string) ([]byte, error)

// eachValue runs fn on every VALUE: the arguments, or the lines of standard
// input when there are none; with split, the values that split finds in
// each of them instead. It prints one output line per valid value, in
// order, and a one-line error on stderr for each invalid one, and returns
// exit status 1 if any value was invalid.
func eachValue(e *env, who string, args []string, split func(string) []string, fn valueFunc) int {
	out := bufio.NewWriter(e.stdout)
	status := exitOK
	var line []byte
	one := func(v string, tooLong bool) {
		var err error
		if tooLong {
			err = errors.New("line longer than " + strconv.Itoa(maxLine) + " bytes")
		} else {
			line, err = fn(line[:0], v)
		}
		if err != nil {
			reportValue(e, out, who, v, err)
			status = exitFail
			return
		}
		line = append(line, '\n')
		out.Write(line)
	}
	do := one
	if split != nil {
		do = func(text string, tooLong bool) {
			if tooLong {
				one(text, true)
				return
			}
			for _, v := range split(text) {
				one(v, false)
			}
		}
	}
	if len(args) > 0 {
		for _, v := range args {
			do(v, false)
		}
	} else if err := eachLine(e.stdin, out, do); err != nil {
		out.Flush()
		errorf(e, who, "reading standard input: %v", err)
		status = exitFail
	}
	if err := out.Flush(); err != nil {
		errorf(e, who, "writing standard output: %v", err)
		status = exitFail
	}
	return status
}

// eachLine calls fn with every line of r (tooLong: the line was longer than
// maxLine and v holds its start). Before it may block on reading more input
// it flushes out, so that line-by-line pipes see each answer at once.
func eachLine(r io.Reader, out *bufio.Writer, fn func(v string, tooLong bool)) error {
	in := bufio.NewReaderSize(r, maxLine)
	var long []byte // the start of a line longer than the buffer
	for {
		if buf, _ := in.Peek(in.Buffered()); bytes.IndexByte(buf, '\n') < 0 {
			out.Flush() // a write error is reported by the caller's final flush
		}
		chunk, err := in.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if long == nil {
				long = bytes.Clone(chunk[:min(len(chunk), 2*msg.MaxQuote)])
			}
			continue
		}
		switch {
		case long != nil:
			fn(string(long), true)
			long = nil
		case len(chunk) > 0 || err == nil:
			chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
			chunk = bytes.TrimSuffix(chunk, []byte{'\r'})
			fn(string(chunk), false)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// reportValue writes the error for an invalid VALUE: one line on stderr
// that names the value. Output written so far is flushed first so that the
// two streams stay in order on a terminal.
func reportValue(e *env, out *bufio.Writer, who, value string, err error) {
	out.Flush()
	msg := strings.TrimPrefix(err.Error(), "once: ")
	if q := quoteValue(value); !strings.Contains(msg, q) {
		msg = "invalid value " + q + ": " + msg
	}
	errorf(e, who, "%s", msg)
}
