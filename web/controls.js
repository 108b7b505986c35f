// The volunteer's controls (issue #25 item 5): pause and resume, a CPU
// share the training keeps to, training only while the tab is visible
// (Page Visibility API) or the device charging (Battery Status API where
// the browser has it; "unknown" elsewhere, and then it does not hold
// training back), and what this volunteer has given. The page decides
// whether to train; the Go peer obeys between batches and measures
// (wasm/controls.go): a paused tab stays in the overlay and answers its
// neighbours but trains nothing. The settings are kept in localStorage.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const page = window.peerlearnPage;
  const KEY = "peerlearn-controls";
  const ctl = { paused: false, share: 1, onlyVisible: false, onlyCharging: false, charging: null, samples: [] };
  window.peerlearnControls = ctl; // for tests and the console
  try {
    const s = JSON.parse(localStorage.getItem(KEY) || "{}");
    if (typeof s.share === "number" && s.share > 0 && s.share <= 1) ctl.share = s.share;
    ctl.onlyVisible = s.onlyVisible === true;
    ctl.onlyCharging = s.onlyCharging === true;
  } catch (_) { /* unreadable settings: the defaults */ }
  const params = new URLSearchParams(location.search);
  if (params.get("share")) ctl.share = Math.min(1, Math.max(0.01, +params.get("share") || 1));

  // Why training is held now, or "" to train.
  function holdReason() {
    if (ctl.paused) return "paused by you";
    if (ctl.onlyVisible && document.visibilityState !== "visible") return "this tab is hidden";
    if (ctl.onlyCharging && ctl.charging === false) return "the device is on battery";
    return "";
  }
  function apply() {
    localStorage.setItem(KEY, JSON.stringify({ share: ctl.share, onlyVisible: ctl.onlyVisible, onlyCharging: ctl.onlyCharging }));
    const why = holdReason();
    $("pause").textContent = ctl.paused ? "Resume training" : "Pause training";
    $("pause").setAttribute("aria-pressed", String(ctl.paused));
    $("cpu-share").value = String(ctl.share);
    if (![...$("cpu-share").options].some((o) => o.value === String(ctl.share))) {
      const o = document.createElement("option");
      o.value = String(ctl.share);
      o.textContent = Math.round(100 * ctl.share) + "%";
      $("cpu-share").append(o);
      $("cpu-share").value = o.value;
    }
    $("only-visible").checked = ctl.onlyVisible;
    $("only-charging").checked = ctl.onlyCharging;
    $("training-state").textContent = why ? `Training held: ${why}. This tab stays in the overlay.` :
      ctl.share < 1 ? `Training at most ${Math.round(100 * ctl.share)}% of the time.` : "";
    if (page.peer) send(page.peer);
  }
  // send tells the peer (its answer may be a promise: a peer in a worker).
  function send(peer) {
    if (typeof peer.setControls !== "function") return;
    const why = holdReason();
    Promise.resolve()
      .then(() => peer.setControls({ paused: why !== "", reason: why, share: ctl.share }))
      .then((r) => { if (r instanceof Error) throw r; })
      .catch((e) => page.showError("Controls: " + e.message));
  }
  page.setControls = (o) => { Object.assign(ctl, o); apply(); }; // for tests and the console

  $("pause").addEventListener("click", () => { ctl.paused = !ctl.paused; apply(); });
  $("cpu-share").addEventListener("change", () => { ctl.share = +$("cpu-share").value; apply(); });
  $("only-visible").addEventListener("change", () => { ctl.onlyVisible = $("only-visible").checked; apply(); });
  $("only-charging").addEventListener("change", () => { ctl.onlyCharging = $("only-charging").checked; apply(); });
  document.addEventListener("visibilitychange", apply);

  // The Battery Status API (Chromium; not Firefox or Safari).
  if (typeof navigator.getBattery === "function") {
    navigator.getBattery().then((b) => {
      const read = () => {
        ctl.charging = b.charging;
        $("battery").textContent = b.charging ? "charging" : `on battery (${Math.round(100 * b.level)}%)`;
        apply();
      };
      b.addEventListener("chargingchange", read);
      b.addEventListener("levelchange", read);
      read();
    }, () => { $("battery").textContent = "unknown (the browser does not tell)"; });
  } else {
    $("battery").textContent = "unknown (the browser does not tell)";
  }

  function duration(ms) {
    const s = Math.round(ms / 1000);
    if (s < 60) return s + " s";
    if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
    return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  }
  // The measured share: busy training time over wall time, last 10 s.
  function render(s) {
    const c = s.controls;
    if (!c) return;
    const now = performance.now();
    ctl.samples.push({ t: now, busy: c.busy_ms });
    while (ctl.samples.length > 2 && now - ctl.samples[0].t > 10000) ctl.samples.shift();
    const a = ctl.samples[0];
    const share = now - a.t > 1500 ? (c.busy_ms - a.busy) / (now - a.t) : NaN;
    ctl.measured = share;
    $("given-share").textContent = isFinite(share) ? (100 * share).toFixed(0) + "%" : "–";
    $("given-time").textContent = duration(c.given_ms);
    $("given-samples").textContent = s.learn ? String(s.learn.samples_trained) : "0";
    if (c.parked) $("training-state").textContent = `Training held: ${c.reason || "paused"}. This tab stays in the overlay.`;
  }
  page.hooks.push({
    beforeJoin(peer) {
      ctl.samples = [];
      send(peer);
    },
    event(ev) { if (ev.type === "status") render(ev.status); },
  });
  apply();
})();
