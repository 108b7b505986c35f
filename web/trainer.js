// Starting the tab's trainer: peer.wasm in a Web Worker (web/worker.js,
// wasm/trainer.go), handed to the peer as newPeer's `trainer` option.
// Where Workers are missing or the worker fails to start, the peer
// trains on the page's thread and the page says why.
"use strict";

// startTrainer resolves to {worker, kernels, kernelsNote} once the
// worker's Go runtime is ready, or rejects with the reason it is not.
// module is the WebAssembly.Module the page compiled peer.wasm to: the
// worker instantiates it without fetching or compiling anything.
function startTrainer(module, wasmExecURL, timeoutMS = 20000) {
  return new Promise((resolve, reject) => {
    if (typeof Worker !== "function") return reject(new Error("this browser has no Web Workers"));
    if (!(module instanceof WebAssembly.Module)) return reject(new Error("no compiled peer.wasm to hand over"));
    let worker;
    try {
      worker = new Worker("worker.js");
    } catch (e) {
      return reject(new Error("the trainer worker did not start: " + e.message));
    }
    const fail = (why) => { clearTimeout(timer); worker.terminate(); reject(new Error(why)); };
    const timer = setTimeout(() => fail(`the trainer worker was not ready in ${timeoutMS / 1000} s`), timeoutMS);
    worker.onerror = (e) => { e.preventDefault(); fail("the trainer worker failed: " + (e.message || "load error")); };
    worker.onmessage = (e) => {
      const d = e.data || {};
      if (d.type === "failed") return fail("the trainer worker failed: " + d.message);
      if (d.type === "fetched") { window.peerlearnTrainerFetched = d.entries; return; } // for the page's download count
      if (d.type !== "ready") return;
      clearTimeout(timer);
      worker.onmessage = worker.onerror = null; // the peer's from now on
      resolve({ worker, kernels: d.kernels, kernelsNote: d.kernelsNote || "" });
    };
    try {
      worker.postMessage({ type: "start", module, wasmExec: new URL(wasmExecURL, location.href).href });
    } catch (e) {
      fail("could not hand peer.wasm to the trainer worker: " + e.message);
    }
  });
}

// trainerText says where this tab trains, from peer.status().trainer.
function trainerText(t) {
  if (!t) return "–";
  const k = t.kernels === "simd128" ? "WebAssembly SIMD" : "pure Go";
  return t.where === "worker" ? `a Web Worker (${k})` : `the page's thread (${k}; ${t.note})`;
}
