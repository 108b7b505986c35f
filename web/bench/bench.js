// Training throughput: PeerLearn's Go-wasm engine (/wasm/bench.wasm,
// package nn; pure-Go kernels as "go-wasm", f32's SIMD128 module as
// "go-simd") vs TensorFlow.js 4.22 (wasm, webgl, cpu backends), same
// architectures, SGD lr 0.05 momentum 0.9, same real MNIST batches.
// URL parameters: ms (per measurement, default 3000), batch (default 64),
// n (MNIST samples to cycle through, default 4096), data (the directory of
// mnist/train-*-ubyte, default /data/), spaces (the L of the eclipse
// grinder's key-generation rate, default 5; measured for ms too). The
// result is window.benchResult.
"use strict";
const q = new URLSearchParams(location.search);
const MS = +(q.get("ms") || 3000), BATCH = +(q.get("batch") || 64), N = +(q.get("n") || 4096);
const DATA = q.get("data") || "/data/", SPACES = +(q.get("spaces") || 5);
const out = document.getElementById("out");
const log = (s) => { out.textContent += "\n" + s; console.log(s); };
window.benchResult = null;

async function mnist() {
  const get = async (f) => new Uint8Array(await (await fetch(DATA + "mnist/" + f)).arrayBuffer());
  const img = await get("train-images-idx3-ubyte"), lbl = await get("train-labels-idx1-ubyte");
  const dv = new DataView(img.buffer);
  if (dv.getUint32(0) !== 2051 || dv.getUint32(12) !== 28) throw new Error("not an MNIST image IDX file");
  const x = new Float32Array(N * 784), y = new Int32Array(N);
  for (let i = 0; i < N * 784; i++) x[i] = img[16 + i] / 255;
  for (let i = 0; i < N; i++) y[i] = lbl[8 + i];
  return { x, y };
}

function tfModel(arch) {
  const m = tf.sequential();
  if (arch === "mlp") {
    m.add(tf.layers.dense({ units: 128, activation: "relu", inputShape: [784] }));
    m.add(tf.layers.dense({ units: 10 }));
  } else { // small-cnn, as nn's: conv 8@3x3 same, relu, pool 2, conv 16@3x3 same, relu, pool 2, dense 10
    m.add(tf.layers.conv2d({ filters: 8, kernelSize: 3, padding: "same", activation: "relu", inputShape: [28, 28, 1] }));
    m.add(tf.layers.maxPooling2d({ poolSize: 2 }));
    m.add(tf.layers.conv2d({ filters: 16, kernelSize: 3, padding: "same", activation: "relu" }));
    m.add(tf.layers.maxPooling2d({ poolSize: 2 }));
    m.add(tf.layers.flatten());
    m.add(tf.layers.dense({ units: 10 }));
  }
  return m;
}

async function tfTrain(backend, arch, data) {
  if (!(await tf.setBackend(backend))) throw new Error(`setBackend(${backend}) failed`);
  await tf.ready();
  const got = tf.getBackend();
  if (got !== backend) throw new Error(`asked for ${backend}, got ${got}`);
  const model = tfModel(arch);
  const opt = tf.train.momentum(0.05, 0.9);
  const shape = arch === "mlp" ? [N, 784] : [N, 28, 28, 1];
  const X = tf.tensor(data.x, shape), Y = tf.oneHot(tf.tensor1d(data.y, "int32"), 10).toFloat();
  const nb = Math.floor(N / BATCH);
  const step = (i) => {
    const j = i % nb;
    return tf.tidy(() => {
      const xb = arch === "mlp" ? X.slice([j * BATCH, 0], [BATCH, 784]) : X.slice([j * BATCH, 0, 0, 0], [BATCH, 28, 28, 1]);
      const yb = Y.slice([j * BATCH, 0], [BATCH, 10]);
      return opt.minimize(() => tf.losses.softmaxCrossEntropy(yb, model.apply(xb)), true);
    });
  };
  try {
    for (let i = 0; i < 5; i++) { const l = step(i); await l.data(); l.dispose(); }
    let steps = 0, loss = null;
    const t0 = performance.now();
    while (performance.now() - t0 < MS) {
      if (loss) loss.dispose();
      loss = step(steps++);
      if (steps % 10 === 0) await loss.data(); // keep GPU queues bounded
    }
    const lv = (await loss.data())[0];
    const el = performance.now() - t0;
    loss.dispose();
    return { sps: (steps * BATCH) / (el / 1000), steps, loss: lv, ms: el, backend: tf.getBackend() };
  } finally {
    X.dispose(); Y.dispose(); model.dispose(); opt.dispose();
  }
}

// goTrain trains with the Go-wasm engine: with f32's SIMD128 module if
// simd, else with the pure-Go kernels; backend is the kernels that ran
// (f32.Kernels(): "simd128" or "go").
async function goTrain(arch, data, simd) {
  const r = await PeerLearnBench.train(arch, data.x, data.y, BATCH, MS, simd);
  return { sps: r.sps, steps: r.steps, loss: r.loss, ms: r.ms, backend: r.kernels };
}

(async () => {
  const res = { batch: BATCH, samples: N, ms: MS, userAgent: navigator.userAgent, runs: [] };
  try {
    const go = new Go();
    const inst = (await WebAssembly.instantiateStreaming(fetch("/wasm/bench.wasm"), go.importObject)).instance;
    go.run(inst);
    tf.wasm.setWasmPaths(new URL("node_modules/@tensorflow/tfjs-backend-wasm/dist/", location.href).href);
    // The eclipse grinder's per-key work (sim/eclipse.KeyRate): an
    // attacker in a tab grinds keys at this rate.
    const kg = await PeerLearnBench.keygen(SPACES, MS);
    res.keygen = { keys: kg.keys, ms: kg.ms, keysPerS: kg.keysPerS, spaces: kg.spaces };
    log(`keygen (L=${kg.spaces}): ${kg.keysPerS.toFixed(0)} keys/s (${kg.keys} keys in ${kg.ms.toFixed(0)} ms)`);
    const data = await mnist();
    log(`MNIST: ${N} samples, batch ${BATCH}, ${MS} ms a run`);
    for (const arch of ["mlp", "small-cnn"]) {
      const runs = [["go-wasm", () => goTrain(arch, data, false)], ["go-simd", () => goTrain(arch, data, true)]];
      for (const b of ["wasm", "webgl", "cpu"]) runs.push(["tfjs-" + b, () => tfTrain(b, arch, data)]);
      for (const [engine, fn] of runs) {
        let r;
        try {
          r = await fn();
          log(`${arch} ${engine}: ${r.sps.toFixed(0)} samples/s (${r.steps} steps, loss ${r.loss.toFixed(3)}, backend ${r.backend})`);
        } catch (e) {
          r = { error: String(e && e.message || e) };
          log(`${arch} ${engine}: FAILED: ${r.error}`);
        }
        res.runs.push({ arch, engine, ...r });
      }
    }
    if (tf.wasm && tf.wasm.getThreadsCount) res.tfjsWasmThreads = tf.wasm.getThreadsCount();
    res.tfjsWasmSimd = await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT");
  } catch (e) {
    res.error = String(e && e.message || e);
    log("FAILED: " + res.error);
  }
  window.benchResult = res;
})();
