// PeerLearn browser peer page: loads the Go-wasm peer (/wasm/peer.wasm),
// drives it (join, leave, download) and shows its status.
//
// URL parameters (all optional): task, shard (K/N), signal (ws URL), data
// (data directory URL), tick, evalEvery (ms), evalSamples, maxRoundMS,
// autojoin=1. The overlay's ring count L is the task's ("spaces" in the
// task spec): the peer reads it from the welcome. The tasks to pick from
// are the server's GET /tasks (see "the task list" below).
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const page = { peer: null, status: null, ready: false, errors: [], logLines: [] };
window.peerlearnPage = page; // for tests and the console

// ---- hooks for the page's other scripts (resume.js, controls.js) ----
// Each is an object of optional functions: ready() once the wasm runs
// (true: it joined, so ?autojoin does not), beforeJoin(peer) before a
// join (may import a saved session), event(ev) for every peer event.
page.hooks = [];
page.join = () => join();
page.showError = (m) => showError(m);
async function runHooks(name, ...args) {
  let any = false;
  for (const h of page.hooks) {
    if (typeof h[name] !== "function") continue;
    try { if (await h[name](...args)) any = true; } catch (e) { showError(`${name}: ${e.message}`); }
  }
  return any;
}

// ---- main-thread responsiveness: requestAnimationFrame deltas ----
const perf = {
  frames: 0, maxFrameMS: 0, over50: 0, deltas: [], longTasks: 0, maxLongTaskMS: 0, last: 0,
  reset() { this.frames = 0; this.maxFrameMS = 0; this.over50 = 0; this.deltas = []; this.longTasks = 0; this.maxLongTaskMS = 0; this.last = 0; },
  snapshot() {
    const d = this.deltas.slice().sort((a, b) => a - b);
    const q = (p) => (d.length ? d[Math.min(d.length - 1, Math.floor(p * d.length))] : 0);
    return { frames: this.frames, maxFrameMS: this.maxFrameMS, p50FrameMS: q(0.5), p99FrameMS: q(0.99),
      over50: this.over50, longTasks: this.longTasks, maxLongTaskMS: this.maxLongTaskMS };
  },
};
window.peerlearnPerf = perf;
function frame(t) {
  if (perf.last) {
    const dt = t - perf.last;
    perf.frames++;
    perf.deltas.push(dt);
    if (perf.deltas.length > 20000) perf.deltas.splice(0, 10000);
    if (dt > perf.maxFrameMS) perf.maxFrameMS = dt;
    if (dt > 50) perf.over50++;
  }
  perf.last = t;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      perf.longTasks++;
      if (e.duration > perf.maxLongTaskMS) perf.maxLongTaskMS = e.duration;
    }
  }).observe({ type: "longtask", buffered: false });
} catch (_) { /* no Long Tasks API */ }

// ---- errors ----
function showError(msg) {
  msg = String(msg);
  page.errors.push(msg);
  const li = document.createElement("li");
  li.textContent = msg;
  $("error-list").appendChild(li);
  $("errors").hidden = false;
}
$("errors-clear").addEventListener("click", () => {
  $("error-list").replaceChildren();
  $("errors").hidden = true;
});
window.addEventListener("error", (e) => showError("Page error: " + e.message));
window.addEventListener("unhandledrejection", (e) => showError("Page error: " + (e.reason && e.reason.message || e.reason)));

function setState(s) {
  $("state").textContent = s;
  $("state").dataset.state = s;
  const running = ["starting", "loading", "joining", "member"].includes(s);
  $("join").disabled = !page.ready || running || s === "leaving";
  $("leave").disabled = !running;
}

// ---- loading the Go-wasm peer ----
async function loadWasm() {
  if (typeof Go !== "function") throw new Error("wasm_exec.js did not load from /wasm/ (is the signalling server run with -wasm?)");
  const go = new Go();
  const url = "/wasm/peer.wasm";
  let r;
  try {
    r = await WebAssembly.instantiateStreaming(fetch(url), go.importObject);
  } catch (e) {
    const resp = await fetch(url);
    if (!resp.ok) throw new Error(`${url}: HTTP ${resp.status} (build it: make wasm)`);
    r = await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject);
  }
  const inst = r.instance;
  // Training runs in a Web Worker given this very module (web/trainer.js);
  // ?trainer=main keeps it on the page's thread.
  page.trainer = params.get("trainer") === "main" ? Promise.resolve({ note: "the page asked for it (?trainer=main)" })
    : startTrainer(r.module, "/wasm/wasm_exec.js").catch((e) => ({ note: e.message }));
  go.run(inst).then(() => showError("The Go runtime exited."), (e) => showError("The Go runtime crashed: " + e));
  if (!window.PeerLearn) throw new Error("peer.wasm did not export PeerLearn");
  // Which kernels train here: the WebAssembly SIMD module, or pure Go
  // (with the reason the SIMD module did not start).
  const k = PeerLearn.kernels;
  $("kernels").textContent = k === "simd128" ? "WebAssembly SIMD (simd128)" :
    "pure Go" + (PeerLearn.kernelsNote ? " (" + PeerLearn.kernelsNote + ")" : "");
  $("kernels").dataset.kernels = k;
}

// ---- own images: decoded to 28x28 grey levels, MNIST-style white on black ----
let own = null;
function labelOf(file) {
  const base = file.name.match(/\d/);
  if (base) return +base[0];
  const dir = (file.webkitRelativePath || "").split("/").slice(-2, -1)[0] || "";
  const d = dir.match(/\d/);
  return d ? +d[0] : -1;
}
// MNIST's preprocessing, roughly: find the ink's bounding box (pixels far
// from the border's grey), scale it into a 20x20 box centred in 28x28, and
// make the ink white on black.
async function decodeImages(files) {
  const n = files.length, x = new Float32Array(n * 784), labels = [];
  const big = new OffscreenCanvas(1, 1), bctx = big.getContext("2d", { willReadFrequently: true });
  const small = new OffscreenCanvas(28, 28), sctx = small.getContext("2d", { willReadFrequently: true });
  let k = 0, skipped = 0;
  for (const f of files) {
    const y = labelOf(f);
    if (y < 0 || y > 9) { skipped++; continue; }
    let bmp;
    try { bmp = await createImageBitmap(f); } catch (_) { skipped++; continue; }
    const r = Math.min(1, 256 / Math.max(bmp.width, bmp.height));
    const W = Math.max(1, Math.round(bmp.width * r)), H = Math.max(1, Math.round(bmp.height * r));
    big.width = W; big.height = H;
    bctx.fillStyle = "#fff";
    bctx.fillRect(0, 0, W, H);
    bctx.drawImage(bmp, 0, 0, W, H);
    bmp.close();
    const px = bctx.getImageData(0, 0, W, H).data;
    const grey = (i) => (px[4 * i] + px[4 * i + 1] + px[4 * i + 2]) / 765;
    let bg = 0, nb = 0;
    for (let i = 0; i < W; i++) { bg += grey(i) + grey((H - 1) * W + i); nb += 2; }
    for (let j = 0; j < H; j++) { bg += grey(j * W) + grey(j * W + W - 1); nb += 2; }
    bg /= nb;
    let x0 = W, y0 = H, x1 = -1, y1 = -1;
    for (let j = 0; j < H; j++) for (let i = 0; i < W; i++) {
      if (Math.abs(grey(j * W + i) - bg) > 0.3) { x0 = Math.min(x0, i); x1 = Math.max(x1, i); y0 = Math.min(y0, j); y1 = Math.max(y1, j); }
    }
    if (x1 < 0) { x0 = 0; y0 = 0; x1 = W - 1; y1 = H - 1; }
    const bw = x1 - x0 + 1, bh = y1 - y0 + 1, s = 20 / Math.max(bw, bh);
    const c = Math.round(bg * 255);
    sctx.fillStyle = `rgb(${c},${c},${c})`;
    sctx.fillRect(0, 0, 28, 28);
    sctx.drawImage(big, x0, y0, bw, bh, (28 - bw * s) / 2, (28 - bh * s) / 2, bw * s, bh * s);
    const sp = sctx.getImageData(0, 0, 28, 28).data;
    const invert = bg > 0.5; // dark ink on a light background
    for (let i = 0; i < 784; i++) {
      const g = (sp[4 * i] + sp[4 * i + 1] + sp[4 * i + 2]) / 765;
      x[k * 784 + i] = invert ? 1 - g : g;
    }
    labels.push(y);
    k++;
    if (k % 50 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  return { images: x.subarray(0, k * 784), labels: Int32Array.from(labels), skipped };
}
document.querySelectorAll('input[name="source"]').forEach((r) => r.addEventListener("change", () => {
  $("own-box").hidden = document.querySelector('input[name="source"]:checked').value !== "own";
}));
$("own-files").addEventListener("change", async (e) => {
  $("own-summary").textContent = "Decoding…";
  try {
    own = await decodeImages([...e.target.files]);
    const h = new Array(10).fill(0);
    own.labels.forEach((y) => h[y]++);
    $("own-summary").textContent = `${own.labels.length} images (per label ${h.join(" ")})` +
      (own.skipped ? `, ${own.skipped} skipped (no digit label or not an image)` : "") + ". Kept in this tab only.";
  } catch (err) {
    own = null;
    showError("Could not read the images: " + err.message);
  }
});

// ---- join / leave / download ----
// Where the peer connects: this page's server unless ?signal= / ?data=
// say otherwise. A link naming another origin could send a volunteer to
// a hostile server or data host, so such a link is used only after the
// volunteer confirmed the exact addresses (once per page load); declined,
// the page's own server is used.
let foreignEndpoints = null; // null: not asked yet; true/false: the answer
function endpoints() {
  const wsProto = location.protocol === "https:" ? "wss:" : "ws:";
  const own = { signalURL: `${wsProto}//${location.host}/signal`, dataURL: `${location.origin}/wasm/data/` };
  const asked = { signalURL: params.get("signal") || own.signalURL, dataURL: params.get("data") || own.dataURL };
  const foreign = [];
  const check = (what, raw, schemes) => {
    let u;
    try { u = new URL(raw, location.href); } catch (e) { throw new Error(`The link's ${what} address is not a URL: ${raw}`); }
    if (!(u.protocol in schemes)) throw new Error(`The link's ${what} address must be ${Object.keys(schemes).join(" or ")}: ${raw}`);
    if (schemes[u.protocol] + "//" + u.host !== location.origin) foreign.push(`${what}: ${u.href}`);
    return u.href;
  };
  asked.signalURL = check("signalling server", asked.signalURL, { "ws:": "http:", "wss:": "https:" });
  asked.dataURL = check("training data", asked.dataURL, { "http:": "http:", "https:": "https:" });
  if (foreign.length === 0) return asked;
  if (foreignEndpoints === null) {
    foreignEndpoints = window.confirm("This link asks the page to connect somewhere other than " + location.origin + ":\n\n" +
      foreign.join("\n") + "\n\nConnect there only if you trust it. OK: connect there. Cancel: use " + location.origin + ".");
    if (!foreignEndpoints) showError("Ignored the link's other server (" + foreign.join("; ") + "); using " + location.origin + ".");
  }
  return foreignEndpoints ? asked : own;
}

function peerOptions() {
  const ends = endpoints();
  const o = {
    signalURL: ends.signalURL,
    task: $("task").value.trim(),
    dataURL: ends.dataURL,
    shard: params.get("shard") || "",
    seed: tabSeed(),
    shareProgress: $("share-progress").checked,
  };
  // The defences (wasm options health, suspend): a ticked box leaves the
  // peer its default for the task's rule (on for a clipped one), an
  // unticked one turns it off. The check's moves (healthMoves): the
  // second box, `peerlearn peer`'s usual bound or one from the link;
  // without the check the peer refuses a bound.
  if (!$("health").checked) o.health = false;
  if (!$("suspend").checked) o.suspend = false;
  const hm = params.get("healthMoves");
  if ($("health").checked && $("health-move").checked) o.healthMoves = hm ? +hm : PeerLearn.defaultMoveMax;
  else if (hm) o.healthMoves = +hm;
  for (const [k, p] of [["tickMS", "tick"], ["evalEveryMS", "evalEvery"], ["evalSamples", "evalSamples"], ["maxRoundMS", "maxRoundMS"]]) {
    if (params.get(p)) o[k] = +params.get(p);
  }
  if (document.querySelector('input[name="source"]:checked').value === "files") {
    if (!window.peerlearnOwnFiles || window.peerlearnOwnFiles.length === 0) throw new Error("Pick the task's data folder, or your own files of its form, first.");
    o.files = window.peerlearnOwnFiles; // ownfiles.js
  }
  if (document.querySelector('input[name="source"]:checked').value === "own") {
    if (!own || own.labels.length === 0) throw new Error("Choose some labelled images first.");
    o.images = own.images;
    o.labels = own.labels;
  }
  return o;
}
// One key per tab (sessionStorage): a reload keeps the peer's ID, two tabs differ.
function tabSeed() {
  let s = sessionStorage.getItem("peerlearn-seed");
  if (!s) {
    const b = crypto.getRandomValues(new Uint8Array(32));
    s = Array.from(b, (v) => v.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem("peerlearn-seed", s);
  }
  return s;
}

async function join() {
  setState("starting");
  let peer;
  const tr = (await page.trainer) || { note: "the page had not loaded peer.wasm" }; // never rejects: {worker, kernels} or {note}
  try {
    peer = PeerLearn.newPeer(Object.assign(peerOptions(), { trainer: tr.worker, trainerKernels: tr.kernels, trainerNote: tr.note }));
    if (peer instanceof Error) throw peer;
  } catch (e) {
    showError(e.message);
    setState("idle");
    return;
  }
  page.peer = peer;
  window.peerlearnPeer = peer;
  $("peer-id").textContent = peer.id;
  peer.onEvent(onEvent);
  await runHooks("beforeJoin", peer);
  try {
    await peer.join();
  } catch (e) {
    showError("Join failed: " + e.message);
    setState("failed");
  }
}
$("join-form").addEventListener("submit", (e) => { e.preventDefault(); join(); });
// "… and move away" is the check's: offered only with it.
const healthMoveBox = () => { $("health-move").disabled = !$("health").checked; };
$("health").addEventListener("change", healthMoveBox);
healthMoveBox();
$("leave").addEventListener("click", async () => {
  if (!page.peer) return;
  try { await page.peer.leave(); } catch (e) { showError("Leave: " + e.message); }
});
$("download").addEventListener("click", async () => {
  try {
    const m = await page.peer.downloadModel($("download-format").value);
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([m.bytes], { type: "application/octet-stream" }));
    a.download = m.name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  } catch (e) { showError("Download: " + e.message); }
});

function onEvent(ev) {
  runHooks("event", ev);
  switch (ev.type) {
    case "status": render(ev.status); break;
    case "state": setState(ev.state); break;
    case "error": showError(ev.message); break;
    case "progress": $("data-summary").textContent = ev.message; break;
    case "log": appendLog(ev.lines); break;
    case "moved": moved(ev); break;
  }
}
// moved: the neighbourhood check moved the peer to a new place under a
// new key (wasm/move.go). The tab keeps the new seed: a later join, or
// a reload, is the new key's, never the old place's again (resume.js
// saves the session under it at once).
function moved(ev) {
  sessionStorage.setItem("peerlearn-seed", ev.seed);
  $("peer-id").textContent = ev.id;
  appendLog([`moved away from a captured neighbourhood: peer ${ev.previous.slice(0, 8)}… is now ${ev.id.slice(0, 8)}…`]);
}
function appendLog(lines) {
  page.logLines.push(...lines);
  if (page.logLines.length > 400) page.logLines.splice(0, page.logLines.length - 400);
  const el = $("log");
  const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
  el.textContent = page.logLines.join("\n");
  if (atEnd) el.scrollTop = el.scrollHeight;
}

// ---- rendering ----
// renderInitGain shows the push-sum network-size estimate and the init
// gain of a task with init he-gain and gain 0 (absent otherwise).
function renderInitGain(g) {
  $("init-gain-fig").hidden = !g;
  if (!g) return;
  const est = g.estimate ? g.estimate.toFixed(1) : "–";
  $("init-gain").textContent = g.state === "estimating"
    ? `${est} (estimating, round ${g.rounds})`
    : `${g.used.toFixed(1)} / ×${g.gain.toFixed(2)}${g.state === "done" ? "" : " (" + g.state + ")"}`;
  $("init-gain").title = `push-sum over the overlay: live estimate ${est}, ${g.rounds} rounds, ` +
    `converged ${g.converged}, family ${g.family}; shares sent ${g.sent}, received ${g.received}, refused ${g.refused}`;
}
const pct = (v) => (100 * v).toFixed(1) + "%";
// downloadedText says what this tab downloaded, as the browser's
// resource timing counts it (bytes on the wire, headers included; 0 for
// what came from the cache): in all, peer.wasm, and the data (the light
// shard and test subset, or the whole dataset where the server has no
// light files).
function downloadedText(d) {
  let total = 0, wasm = 0, data = 0;
  for (const e of [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")]) {
    const n = e.transferSize || 0;
    total += n;
    if (e.name.includes("/wasm/data/")) data += n;
    else if (e.name.endsWith(".wasm")) wasm += n;
  }
  // The trainer worker's own requests (web/trainer.js): the page's timing does not see them.
  for (const e of window.peerlearnTrainerFetched || []) total += e.bytes;
  $("data-summary").dataset.downloaded = total;
  return `Downloaded ${bytes(total)} in all: peer.wasm ${bytes(wasm)}, data ${bytes(data)} ` +
    (d.source === "own" ? "(a test set)." : d.light ? "(this tab's shard and a test subset only)." : "(the whole dataset: the server has no light shard for this task).");
}

function bytes(n) {
  const u = ["B", "kB", "MB", "GB"];
  let i = 0;
  while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
  return (i ? n.toFixed(1) : n) + " " + u[i];
}
function render(s) {
  page.status = s;
  setState(s.state);
  $("peer-id").textContent = s.id;
  $("task-name").textContent = s.task_name || "–";
  $("task-id").textContent = s.task;
  $("coords").textContent = (s.coords || []).map((c) => c.toFixed(4)).join("  ");
  $("connections").textContent = s.connections;
  $("bytes-in").textContent = bytes(s.bytes_in);
  const L = s.learn;
  // With a codec, say what it saved: the models as float32 less as sent.
  $("bytes-out").textContent = bytes(s.bytes_out) +
    (L && L.codec && L.model_bytes_raw ? ` (${L.codec}: ${bytes(L.model_bytes_raw - L.model_bytes_wire)} saved)` : "");
  if (L) {
    $("rounds").textContent = L.rounds;
    const M = L.method; // absent: FedLay's MEP
    $("method").textContent = methodText(M, s.id);
    // Only FedLay's MEP has a neighbourhood model (the aggregate a round starts from).
    $("neighbors-accuracy-fig").hidden = $("neighbors-key").hidden = !!M;
    $("method").title = M ? roleWords[M.role] || "" : "";
    $("models").textContent = `${L.models_received} / ${L.models_sent}`;
    $("train-loss").textContent = L.rounds ? L.train_loss.toFixed(3) : "–";
    $("accuracy").textContent = L.evals ? pct(L.accuracy) : "–";
    $("neighbors-accuracy").textContent = L.evals && L.neighbors_accuracy ? pct(L.neighbors_accuracy) : "–";
    $("epoch-progress").value = L.epoch_progress;
    $("epoch-label").textContent = `Local epoch ${Math.floor(L.epoch) + (L.epoch_progress < 1 ? 1 : 0)}: ${pct(L.epoch_progress)} of the shard ` +
      `(${L.samples_per_round} samples a round every ${(L.period_ms / 1000).toFixed(1)} s, ~${Math.round(L.train_sps)} samples/s here)`;
    $("capped").hidden = !L.capped;
    $("capped").textContent = L.capped ? "Note: " + L.capped : "";
    $("download").disabled = L.rounds === 0;
    renderGuard(L, s);
  }
  if (s.data) {
    $("data-summary").textContent = `Data: ${s.data.source === "own" ? "your images" : "server shard " + s.data.shard}, ` +
      `${s.data.samples} training samples (labels ${(s.data.labels || []).join(" ")}), ${s.data.test_samples} test samples. ` +
      downloadedText(s.data);
  }
  renderInitGain(s.init_gain);
  renderNeighbors(s);
  renderDefences(s);
  drawRings(s);
  const h = s.history;
  if (h) {
    for (const k of ["t", "accuracy", "loss", "neighbors_accuracy", "round_t", "train_loss"]) h[k] = h[k] || [];
    // A method other than FedLay's has no neighbourhood model to chart.
    const method = s.learn && s.learn.method;
    drawChart($("chart-accuracy"), [
      { x: h.t, y: h.accuracy, color: cssVar("--accent") },
      ...(method ? [] : [{ x: h.t, y: h.neighbors_accuracy, color: cssVar("--accent2") }]),
    ], { ymin: 0, ymax: 1, fmt: (v) => pct(v).replace(".0%", "%") });
    drawChart($("chart-loss"), [
      { x: h.round_t, y: h.train_loss, color: cssVar("--accent") },
      { x: h.t, y: h.loss, color: cssVar("--accent3") },
    ], { ymin: 0, fmt: (v) => v.toFixed(2) });
  }
  $("trainer-where").textContent = trainerText(s.trainer);
  $("trainer-where").dataset.where = s.trainer ? s.trainer.where : "";
  const p = perf.snapshot();
  $("frame-max").textContent = p.maxFrameMS.toFixed(0);
  $("frame-slow").textContent = p.over50;
}
// Why the peer waits for the server, and what its transport refused
// from other peers, in words (issue #14). Its element is made here.
function renderDefences(s) {
  let el = $("defences");
  if (!el) {
    el = document.createElement("p");
    el.id = "defences";
    el.className = "note";
    $("state").after(el);
  }
  const r = s.rtc || {};
  const parts = [];
  if (s.waiting) parts.push(s.waiting + ".");
  // Why connecting to other peers fails, from what ICE told this tab
  // (rtc.Diagnose): shown until the peer is a member (issue #27).
  const f = r.LastFailure;
  if (f && f.cause && s.state !== "member") parts.push(`Cannot connect to other peers: ${f.why}.`);
  const refused = (r.BadSignature || 0) + (r.Replayed || 0) + (r.BadVersion || 0) + (r.Oversized || 0) + (r.UnknownKind || 0) + (r.Malformed || 0);
  if (refused) parts.push(`Refused ${refused} bad messages from other peers.`);
  if (r.Bans) parts.push(`Blocked ${r.Bans} misbehaving peer${r.Bans === 1 ? "" : "s"} for a while.`);
  if (r.Denied) parts.push(`Disconnected ${r.Denied} peer${r.Denied === 1 ? "" : "s"} that kept sending harmful models, for a while.`);
  if (r.OverBudget || r.OffersOverQuota || r.InboundDropped) {
    parts.push(`Turned away ${(r.OverBudget || 0) + (r.OffersOverQuota || 0) + (r.InboundDropped || 0)} requests over this peer's limits.`);
  }
  if (r.RateLimited) parts.push(`Ignored ${r.RateLimited} messages from peers sending too fast.`);
  el.textContent = parts.join(" ");
  el.hidden = parts.length === 0;
}
// Why a neighbour's models were refused, in a volunteer's words
// (netpeer's refusal reasons).
const refusalWords = {
  dropped: "ignored: this tab stopped exchanging models with it",
  non_finite: "refused: broken numbers in them",
  arch: "refused: another kind of model",
  length: "refused: the wrong size",
  screened: "refused: they did much worse on this tab's own data",
  other: "refused",
};
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
// renderGuard tells what the robust aggregation did with suspicious
// neighbours' models: one line per neighbour, and the capped claims;
// with the neighbourhood check, its state and the moves (of the status s).
function renderGuard(L, s) {
  const lines = [];
  for (const o of L.offenders || []) {
    const who = o.id.slice(0, 8);
    const parts = [];
    if (o.clipped) parts.push(`${plural(o.clipped, "model", "models")} from ${who} were cut back (too far from ours)`);
    for (const [why, n] of Object.entries(o.refused || {})) {
      parts.push(`${plural(n, "model", "models")} from ${who} ${refusalWords[why] || refusalWords.other}`);
    }
    let line = parts.join("; ") || `${who} looked suspicious`;
    line += ` (trust ${Math.round(100 * o.reputation)}%)`;
    if (o.dropped_s > 0) line += `. Not exchanging models with ${who} for another ${Math.ceil(o.dropped_s)} s.`;
    lines.push(line);
  }
  if (L.models_bounded) {
    lines.push(`${plural(L.models_bounded, "model", "models")} claimed more training data or confidence than is plausible; the claims were capped.`);
  }
  const h = L.health;
  const hs = $("health-state");
  hs.textContent = h ? healthText(h) + movesText(s.moves, s.id) : "";
  hs.hidden = !h;
  $("guard").hidden = lines.length === 0 && !h;
  $("offenders").replaceChildren(...lines.map((t) => { const li = document.createElement("li"); li.textContent = t; return li; }));
}
// healthText tells the neighbourhood check's state (netpeer.HealthStatus).
function healthText(h) {
  const last = h.neighbours ? ` Last round ${h.disagree} of ${plural(h.neighbours, "neighbour", "neighbours")} did far worse on this tab's data than its own model.` : "";
  const asked = h.replacements_asked ? ` It would need other neighbours (asked ${plural(h.replacements_asked, "time", "times")}).` : "";
  switch (h.state) {
    case "captured":
      return `Neighbourhood check: most neighbours pull against this tab's data; it averages only with the ones that agree.${last}${asked}`;
    case "suspect":
      return `Neighbourhood check: most neighbours disagreed with this tab's data last round; watching.${last}`;
    default:
      return `Neighbourhood check: healthy.${last}`;
  }
}
// movesText tells the moves away from a captured neighbourhood
// (netpeer.MoveStatus; absent when the tab may not move).
function movesText(mv, id) {
  if (!mv) return "";
  let t = "";
  if (mv.moves) {
    t += ` Moved ${plural(mv.moves, "time", "times")} to a new place (a new key and ID, admitted anew; the model and its round kept): now ${id.slice(0, 8)}…, before ${(mv.previous || []).map((p) => p.slice(0, 8) + "…").join(", ")}.`;
  }
  if (mv.failed) t += ` ${plural(mv.failed, "move", "moves")} failed (no new admission from the server): it stays where it is.`;
  const r = mv.refused || {};
  const waited = (r.cooldown || 0) + (r.limit || 0);
  if (waited) t += ` ${plural(waited, "request", "requests")} to move again waited (at most one move every 10 minutes, and a bounded number a visit).`;
  return t;
}
// roleWords explain a method's role (method.Status.Role) to a volunteer.
const roleWords = {
  training: "training on this tab's data",
  waiting: "waiting for the neighbours' models of this round",
  evaluating: "PENS: the candidates evaluate this tab's model on their data",
  fetching: "PENS: fetching the selected neighbours' models to average",
  trainer: "Plexus: in this round's sample, training (or waiting for the round to complete)",
  aggregator: "Plexus: this round's aggregator, collecting and averaging the sample's models",
  idle: "not in this round's work",
  done: "the task's last round is over",
};
const short = (id) => id.slice(0, 8);
// methodText is the method, this peer's role in its round and who it
// works with: PENS's candidates, selected and kept neighbours; Plexus's
// members, the round's sample and its aggregator.
function methodText(M, self) {
  if (!M) return "fedlay: exchanging with the overlay neighbours";
  const ids = (l) => (l || []).map(short).join(" ") || "none";
  let t = `${M.method}: ${M.role}, round ${M.round}, ${M.peers} peers`;
  if (M.method === "pens") {
    t += `; ${(M.candidates || []).length} candidates (${ids(M.candidates)}), selected ${ids(M.selected)}`;
    if (M.neighbours) t += `; kept neighbours ${ids(M.neighbours)}`;
  }
  if (M.method === "plexus") {
    const agg = M.aggregator ? (M.aggregator === self ? "this tab" : short(M.aggregator)) : "none";
    const inSample = (M.sample || []).includes(self);
    t += `; ${M.members || 0} members, sample of ${(M.sample || []).length} (${inSample ? "this tab in it" : "this tab not in it"}), aggregator ${agg}`;
  }
  return t;
}
// neighborWork is a neighbour's part in this peer's method round.
function neighborWork(M, id) {
  const has = (l) => (l || []).includes(id);
  if (M.method === "pens") {
    const w = [];
    if (has(M.candidates)) w.push("candidate");
    if (has(M.selected)) w.push("selected");
    if (has(M.neighbours)) w.push("kept");
    return w.join(", ");
  }
  if (M.method === "plexus") return M.aggregator === id ? "aggregator" : has(M.sample) ? "in the sample" : "";
  return "";
}
function renderNeighbors(s) {
  $("neighbor-count").textContent = s.neighbors ? s.neighbors.length : 0;
  const M = s.learn && s.learn.method;
  $("neighbor-work-h").hidden = !M;
  const rows = (s.neighbors || []).map((n) => {
    const tr = document.createElement("tr");
    const td = (t) => { const c = document.createElement("td"); c.textContent = t; tr.appendChild(c); return c; };
    td(n.short).title = n.id;
    const link = td(n.connected ? "open" : "connecting");
    if (n.connected && n.path) {
      // The selected ICE pair: a relayed link costs the TURN server's bandwidth.
      link.textContent = `open, ${n.path === "relay" ? "relayed (TURN)" : "direct"}`;
      link.title = `local ${n.local}, remote ${n.remote}`;
    }
    const dot = document.createElement("span");
    dot.className = "dot" + (n.connected ? " up" : "");
    link.prepend(dot);
    td(n.pred_in ? n.pred_in.join(", ") : "");
    td(n.succ_in ? n.succ_in.join(", ") : "");
    if (M) td(neighborWork(M, n.id)); // a method's column only
    return tr;
  });
  document.querySelector("#neighbors tbody").replaceChildren(...rows);
  // Observers (`peerlearn collect`) pull this tab's model to watch the
  // task; they are not neighbours and nothing of theirs is aggregated.
  const obs = s.observers || [];
  $("observers").hidden = obs.length === 0;
  $("observers").textContent = obs.length === 0 ? "" :
    `Observed by ${obs.map((o) => o.id.slice(0, 8)).join(", ")} (watching the task: ${obs.reduce((n, o) => n + o.models_sent, 0)} models sent; they train nothing and none of theirs is aggregated)`;
}

// A LAN demo (`make demo LAN=1`) serves the join URL's QR code beside
// the page; elsewhere the image is missing and stays hidden.
{
  const img = $("join-qr"), show = () => { $("join-qr-box").hidden = !(img.naturalWidth > 0); };
  img.addEventListener("load", show);
  if (img.complete) show();
}

const cssVar = (v) => getComputedStyle(document.documentElement).getPropertyValue(v).trim();
function sizeCanvas(c) {
  const r = window.devicePixelRatio || 1, w = c.clientWidth, h = c.clientHeight;
  if (c.width !== Math.round(w * r) || c.height !== Math.round(h * r)) { c.width = Math.round(w * r); c.height = Math.round(h * r); }
  const ctx = c.getContext("2d");
  ctx.setTransform(r, 0, 0, r, 0, 0);
  ctx.clearRect(0, 0, w, h);
  return [ctx, w, h];
}
function drawChart(c, series, opt) {
  const [ctx, w, h] = sizeCanvas(c);
  const padL = 44, padB = 22, padT = 8, padR = 8;
  let xmax = 1, ymax = opt.ymax;
  for (const s of series) for (let i = 0; i < s.x.length; i++) {
    xmax = Math.max(xmax, s.x[i]);
    if (opt.ymax === undefined && isFinite(s.y[i])) ymax = Math.max(ymax || 0, s.y[i]);
  }
  ymax = ymax || 1;
  const X = (v) => padL + (v / xmax) * (w - padL - padR), Y = (v) => h - padB - ((v - opt.ymin) / (ymax - opt.ymin)) * (h - padB - padT);
  ctx.strokeStyle = cssVar("--line");
  ctx.fillStyle = cssVar("--muted");
  ctx.font = "11px system-ui, sans-serif";
  ctx.lineWidth = 1;
  for (let i = 0; i <= 4; i++) {
    const v = opt.ymin + (ymax - opt.ymin) * i / 4, y = Y(v);
    ctx.beginPath(); ctx.moveTo(padL, y); ctx.lineTo(w - padR, y); ctx.stroke();
    ctx.fillText(opt.fmt(v), 2, y + 4);
  }
  ctx.fillText("0 s", padL, h - 6);
  const xl = Math.round(xmax) + " s";
  ctx.fillText(xl, w - padR - ctx.measureText(xl).width, h - 6);
  ctx.lineWidth = 2;
  for (const s of series) {
    if (!s.x.length) continue;
    ctx.strokeStyle = s.color;
    ctx.beginPath();
    s.x.forEach((x, i) => (i ? ctx.lineTo(X(x), Y(s.y[i])) : ctx.moveTo(X(x), Y(s.y[i]))));
    ctx.stroke();
    if (s.x.length === 1) { ctx.fillStyle = s.color; ctx.fillRect(X(s.x[0]) - 2, Y(s.y[0]) - 2, 4, 4); }
  }
}
// The overlay's L rings as concentric circles: this peer (filled) and
// each neighbour at its coordinate on every ring; the ring's predecessor
// and successor are joined to this peer.
function drawRings(s) {
  const [ctx, w, h] = sizeCanvas($("rings"));
  const cx = w / 2, cy = h / 2, L = s.spaces, R = Math.min(w, h) / 2 - 10;
  const at = (ring, c) => {
    const r = R * (0.35 + 0.65 * (ring + 1) / L), a = 2 * Math.PI * c - Math.PI / 2;
    return [cx + r * Math.cos(a), cy + r * Math.sin(a)];
  };
  ctx.lineWidth = 1;
  for (let i = 0; i < L; i++) {
    ctx.strokeStyle = cssVar("--line");
    ctx.beginPath(); ctx.arc(cx, cy, R * (0.35 + 0.65 * (i + 1) / L), 0, 2 * Math.PI); ctx.stroke();
  }
  for (const n of s.neighbors || []) {
    for (let i = 0; i < L; i++) {
      const [x, y] = at(i, n.coords[i]);
      const adj = (n.pred_in || []).includes(i) || (n.succ_in || []).includes(i);
      if (adj) {
        const [sx, sy] = at(i, s.coords[i]);
        ctx.strokeStyle = n.connected ? cssVar("--accent3") : cssVar("--accent2");
        ctx.beginPath(); ctx.moveTo(sx, sy); ctx.lineTo(x, y); ctx.stroke();
      }
      ctx.fillStyle = adj ? (n.connected ? cssVar("--accent3") : cssVar("--accent2")) : "#aab1bd";
      ctx.beginPath(); ctx.arc(x, y, adj ? 4 : 2.5, 0, 2 * Math.PI); ctx.fill();
    }
  }
  ctx.fillStyle = cssVar("--accent");
  for (let i = 0; i < L; i++) {
    const [x, y] = at(i, s.coords[i]);
    ctx.beginPath(); ctx.arc(x, y, 5.5, 0, 2 * Math.PI); ctx.fill();
  }
  ctx.fillStyle = cssVar("--muted");
  ctx.font = "12px system-ui, sans-serif";
  const t = `${L} rings, ${(s.neighbors || []).length} neighbours`;
  ctx.fillText(t, cx - ctx.measureText(t).width / 2, cy + 4);
}
window.addEventListener("resize", () => page.status && render(page.status));

// ---- the task list: the server's GET /tasks ----
// The list fills the Task ID field, which stays as the advanced fallback:
// for a task the list does not show, an older server without /tasks, or
// a ?signal= server of another origin (whose list this page does not
// fetch: only this origin's server is asked). ?task= wins over the list.
const taskList = { tasks: [], fetchedAt: 0 };
const hexTaskID = /^[0-9a-f]{64}$/;

function taskOptionText(t) {
  // Observers (`peerlearn collect`) watch a task; they are not its peers.
  const peers = `${t.peers}/${t.max_peers} peers${t.observers > 0 ? `, ${t.observers} observing` : ""}`;
  // The peers' own claims (their summaries), the median of those reporting.
  const acc = typeof t.accuracy === "number" ? `, accuracy ${(100 * t.accuracy).toFixed(1)}% (${t.reporting} reporting)` : "";
  return `${t.name} — ${t.data}, ${t.model}, ${t.method}${t.codec && t.codec !== "f32" ? " (" + t.codec + ")" : ""}, ${peers}${acc}`;
}

async function fetchTaskList() {
  const resp = await fetch("/tasks", { cache: "no-store", headers: { Accept: "application/json" } });
  if (!resp.ok) throw new Error(`GET /tasks: ${resp.status}`);
  const body = await resp.json();
  if (!body || !Array.isArray(body.tasks)) throw new Error("GET /tasks: no task list");
  taskList.fetchedAt = Date.now();
  taskList.create = body.create && typeof body.create === "object" ? body.create : null; // taskform.js
  return body.tasks.slice(0, 100).filter((t) => t && typeof t.id === "string" && hexTaskID.test(t.id));
}

// renderTaskList fills the select, keeping the field's task selected
// (the last option, "other", stands for an ID typed in the field).
function renderTaskList() {
  const sel = $("task-list");
  const opts = taskList.tasks.map((t) => {
    const o = document.createElement("option");
    o.value = t.id;
    o.textContent = taskOptionText(t);
    o.title = t.id;
    return o;
  });
  const other = document.createElement("option");
  other.value = "";
  other.textContent = "another task (its ID below)";
  sel.replaceChildren(...opts, other);
  syncTaskPick();
}

// syncTaskPick selects the field's task in the list, or "another task"
// (with the field shown) when the list lacks it.
function syncTaskPick() {
  const id = $("task").value.trim().toLowerCase();
  const known = taskList.tasks.some((t) => t.id === id);
  $("task-list").value = known ? id : "";
  if (!known && id !== "") $("task-advanced").open = true;
}

async function loadTaskList() {
  if (params.get("signal")) { $("task-advanced").open = true; return; } // another server's tasks: not listed here
  try {
    taskList.tasks = await fetchTaskList();
  } catch (e) {
    // An older server (404) or none reachable: the field, as before.
    $("task-advanced").open = true;
    appendLog(["task list unavailable (" + e.message + "); enter a task ID"]);
    return;
  }
  if (taskList.tasks.length === 0) { $("task-advanced").open = true; return; }
  if ($("task").value.trim() === "") $("task").value = taskList.tasks[0].id; // no ?task=: the first listed
  renderTaskList();
  $("task-pick").hidden = false;
  $("task-advanced-note").textContent = "(advanced)";
}

$("task-list").addEventListener("change", () => {
  const id = $("task-list").value;
  if (id) {
    $("task").value = id;
  } else {
    $("task").value = "";
    $("task-advanced").open = true;
    $("task").focus();
  }
});
$("task").addEventListener("input", () => { if (taskList.tasks.length) syncTaskPick(); });
// Peers come and go: the counts are fetched again when the list is
// focused, at most every 5 s.
$("task-list").addEventListener("focus", async () => {
  if (Date.now() - taskList.fetchedAt < 5000) return;
  try { taskList.tasks = await fetchTaskList(); renderTaskList(); } catch (_) { /* keep the old counts */ }
});

// ---- start ----
(async () => {
  if (params.get("task")) $("task").value = params.get("task");
  const listed = loadTaskList(); // in parallel with the wasm; never throws, never blocks Join
  setState("loading");
  try {
    await loadWasm();
    page.ready = true;
    setState("idle");
    await listed;
    const resumed = await runHooks("ready"); // a saved session: resume.js joins
    if (!resumed && params.get("autojoin") === "1") join();
  } catch (e) {
    showError(e.message);
    setState("failed");
  }
})();
