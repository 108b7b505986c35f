package proctest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// statusClient bounds a status read: a process that stopped answering
// (frozen, starved) fails the read instead of hanging the test.
var statusClient = http.Client{Timeout: 2 * time.Second}

// GetJSON reads url (a process's /status) and decodes its JSON into v.
func GetJSON(url string, v any) error {
	resp, err := statusClient.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
