package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// staticHandler serves dir's files through an os.Root (no path, and no
// symlink, leads out of dir), without dotfiles (".git", ".env", ".ok"
// and everything under a dot directory are not found) or directory
// listings, gzipped for clients that accept it while the compressed
// copies fit in gzipBytes (0: never gzipped).
func staticHandler(dir string, gzipBytes int64) (http.Handler, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: static directory: %w", ErrConfig, err)
	}
	fsys := noListing{noDotfiles{root.FS()}}
	return newGzipStatic(fsys, http.FileServerFS(fsys), gzipBytes), nil
}

// dataLink returns the directory a top-level "data" symlink in wasmDir
// points to, or "" if there is none: the Makefile and the browser tests
// link the datasets there. os.Root refuses to follow it (it leaves the
// directory), so the server mounts its target at /wasm/data/ on its own
// root, once, at start (Config.DataDir says so explicitly).
func dataLink(wasmDir string) string {
	link := filepath.Join(wasmDir, "data")
	st, err := os.Lstat(link)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		return ""
	}
	if st, err := os.Stat(target); err != nil || !st.IsDir() {
		return ""
	}
	return target
}

// noDotfiles hides every path with an element starting with a dot.
type noDotfiles struct{ fs.FS }

func (n noDotfiles) Open(name string) (fs.File, error) {
	if name != "." {
		for _, elem := range strings.Split(name, "/") {
			if strings.HasPrefix(elem, ".") {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
			}
		}
	}
	return n.FS.Open(name)
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
