package webnet

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"time"
)

// ReadForm parses request r's form (multipart, or URL-encoded for a
// paste; multipart files up to memory bytes in memory) and reads what the
// form parser left of the body (all of it for another encoding), the body
// bounded by limit bytes whatever its encoding and read within timeout of
// now. tooBig or timedOut say why it failed, if so: the caller answers
// 413 or 408.
func ReadForm(w http.ResponseWriter, r *http.Request, limit, memory int64, timeout time.Duration) (tooBig, timedOut bool, err error) {
	// A slow sender holds a connection and a goroutine.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout))
	body := &watchedBody{ReadCloser: http.MaxBytesReader(w, r.Body, limit)}
	r.Body = body
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		err = r.ParseMultipartForm(memory)
	} else {
		// ParseMultipartForm drops ParseForm's error for a body that is not
		// multipart: a 400 KB paste read as an empty form (finding 11).
		err = r.ParseForm()
	}
	if err == nil {
		_, err = io.Copy(io.Discard, r.Body)
	}
	if err == nil && (body.tooBig || body.timedOut) {
		err = errors.New("webnet: form: body not read")
	}
	return body.tooBig, body.timedOut, err
}

// watchedBody is a request body that remembers why reading it stopped:
// over its http.MaxBytesReader's bound, or past the read deadline.
type watchedBody struct {
	io.ReadCloser
	tooBig, timedOut bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			b.tooBig = true
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			b.timedOut = true
		}
	}
	return n, err
}
