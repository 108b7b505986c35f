package server

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path"
)

// staticHandler serves dir's files without directory listings, gzipped
// for clients that accept it while the compressed copies fit in
// gzipBytes (0: never gzipped).
func staticHandler(dir string, gzipBytes int64) http.Handler {
	fsys := noListing{os.DirFS(dir)}
	h := newGzipStatic(fsys, http.FileServerFS(fsys), gzipBytes)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

// noListing hides directories that have no index.html.
type noListing struct{ fs.FS }

func (n noListing) Open(name string) (fs.File, error) {
	f, err := n.FS.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		idx, err := n.FS.Open(path.Join(name, "index.html"))
		if err != nil {
			f.Close()
			return nil, &fs.PathError{Op: "open", Path: name, Err: errors.Join(fs.ErrNotExist, err)}
		}
		idx.Close()
	}
	return f, nil
}
