package netpeer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
)

// A task's declared initial weights (model.weights): a safetensors file
// at a URL, checked by the SHA-256 the spec records, read as the model's
// parameters (taskarch.Weights) and every peer's start (learn.InitWeights).
// LearnerConfig marks such a spec's configuration InitWeights without the
// weights; the shell fetches them with LoadWeights, so a caller that
// forgets gets learn's "init weights: none given", never a model of its
// own that ignores the spec.

// weightsTimeout bounds one fetch of a weights file.
const weightsTimeout = 2 * time.Minute

// weightsHeader bounds a safetensors header beyond 4 bytes a parameter:
// the tensors' names, dtypes, shapes and offsets, for up to
// task.MaxModelLayers layers.
const weightsHeader = 1 << 20

// weightsCache keeps the last files read, by SHA-256, so that many
// peers in one process (the simulator, bench live) fetch a task's file
// once. At most weightsCached entries.
var weightsCache = struct {
	sync.Mutex
	m map[[32]byte][]float32
}{m: map[[32]byte][]float32{}}

const weightsCached = 4

// LoadWeights fetches spec's model.weights and sets cfg.Init to start
// from them; a spec without them leaves cfg as it is. The file may be at
// most 4 bytes a parameter plus weightsHeader, and must hash to the
// spec's SHA-256 and hold exactly the model's tensors.
func LoadWeights(ctx context.Context, spec task.Spec, cfg *learn.Config) error {
	if spec.Model == nil || spec.Model.Weights == nil {
		return nil
	}
	b, err := hex.DecodeString(spec.Model.Weights.SHA256)
	if err != nil || len(b) != sha256.Size {
		return fmt.Errorf("%w: model.weights.sha256 %q", ErrConfig, spec.Model.Weights.SHA256)
	}
	key := [sha256.Size]byte(b)
	weightsCache.Lock()
	w, ok := weightsCache.m[key]
	weightsCache.Unlock()
	if !ok {
		n, err := cfg.Arch.NumParams()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
		file, err := fetchWeights(ctx, spec.Model.Weights.URL, int64(4*n+weightsHeader))
		if err != nil {
			return fmt.Errorf("%w: model.weights: %w", taskarch.ErrWeights, err)
		}
		if w, err = taskarch.Weights(spec, cfg.Arch, file); err != nil {
			return err
		}
		weightsCache.Lock()
		if len(weightsCache.m) >= weightsCached {
			clear(weightsCache.m)
		}
		weightsCache.m[sha256.Sum256(file)] = w
		weightsCache.Unlock()
	}
	cfg.Init = learn.Init{Mode: learn.InitWeights, Weights: w}
	return nil
}

// fetchWeights GETs url, at most limit bytes.
func fetchWeights(ctx context.Context, url string, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, weightsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("GET %s: %d bytes, more than the model's %d", url, resp.ContentLength, limit)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("GET %s: more than the model's %d bytes", url, limit)
	}
	return b, nil
}
