// PeerLearn's trainer worker: the page's peer.wasm, run a second time in
// this Web Worker as the tab's trainer (wasm/trainer.go), so that local
// training never holds the page's frames. The page (web/trainer.js) sends
// the WebAssembly.Module it compiled: nothing is downloaded or compiled
// again. Go's main sees PeerLearnTrainerMode, takes over onmessage and
// posts {type: "ready", kernels}; a failure here posts {type: "failed"}.
"use strict";
self.PeerLearnTrainerMode = true;
self.onmessage = async (e) => {
  const d = e.data || {};
  if (d.type !== "start") return;
  try {
    importScripts(d.wasmExec);
    // What this worker downloaded (its script and wasm_exec.js: the
    // page's resource timing does not see a worker's requests).
    const got = performance.getEntriesByType("resource").map((e) => ({ name: e.name, bytes: e.transferSize || 0 }));
    self.postMessage({ type: "fetched", entries: got });
    const go = new Go();
    const inst = await WebAssembly.instantiate(d.module, go.importObject);
    go.run(inst).then(
      () => self.postMessage({ type: "failed", message: "the trainer's Go runtime exited" }),
      (err) => self.postMessage({ type: "failed", message: "the trainer's Go runtime crashed: " + err }));
  } catch (err) {
    self.postMessage({ type: "failed", message: String((err && err.message) || err) });
  }
};
