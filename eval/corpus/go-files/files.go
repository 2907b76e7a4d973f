package files

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

func ReadConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

func Serve(root string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("file")
		data, _ := os.ReadFile(filepath.Join(root, name))
		w.Write(data)
	}
}

func SafeJoin(root, name string) (string, bool) {
	p := filepath.Join(root, filepath.Clean("/"+name))
	return p, strings.HasPrefix(p, filepath.Clean(root)+string(os.PathSeparator))
}

func Fetch(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

func CountLines(text string) int {
	if text == "" {
		return 0
	}
	return strings.Count(text, "\n")
}

func Write(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(data)
	return err
}
