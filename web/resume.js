// Resume (issue #25 item 4): the tab keeps its session in IndexedDB (its
// key seed, its model, its optimiser's state, its round and the time it
// has given: one record per task, written at most every SAVE_MS, when a
// round has ended since the last write) and, after a reload or a crash,
// joins again with the same ID and goes on from that round. The Go peer
// checks a record before using it (wasm/resume.go): a damaged or foreign
// record is named in the error panel and dropped, and the tab starts
// afresh. "Forget me" leaves and deletes all of it.
//
// A tab that moves away from a captured neighbourhood (the check's
// second box) runs under a new key from then on: its session is saved
// at once under that key, with its seed (the peer exports the pair
// together), over the record of the key it left, so that a reload
// resumes the work under the new key and never goes back to the old
// place; if no record can be written, the old one is dropped.
//
// A Web Lock per task keeps a second tab of the same browser from
// resuming the same session (two peers with one ID) while the first runs.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const page = window.peerlearnPage;
  const DB = "peerlearn", STORE = "sessions", SAVE_MS = 3000;
  // For tests and the console: restored is the record resumed on this
  // load ({task, id, round}); againMS the performance.now() (ms since
  // this page's navigation began) at which a round after it ended.
  const rs = { restored: null, againMS: 0, savedRound: -1, savedAt: 0, saving: false, resave: false, forgotten: null, refused: [] };
  window.peerlearnResume = rs;

  function db() {
    return new Promise((resolve, reject) => {
      const r = indexedDB.open(DB, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE, { keyPath: "task" });
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
  }
  async function store(mode, fn) {
    const d = await db();
    try {
      return await new Promise((resolve, reject) => {
        const tx = d.transaction(STORE, mode);
        const req = fn(tx.objectStore(STORE));
        tx.oncomplete = () => resolve(req && req.result);
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error || new Error("IndexedDB transaction aborted"));
      });
    } finally { d.close(); }
  }
  const all = () => store("readonly", (s) => s.getAll());
  const put = (rec) => store("readwrite", (s) => s.put(rec));
  const drop = (task) => store("readwrite", (s) => s.delete(task));
  const clear = () => store("readwrite", (s) => s.clear());
  rs.all = all; // for tests

  function note(msg) { $("session-note").textContent = msg; }
  function refuse(task, why) {
    rs.refused.push(why);
    page.showError ? page.showError(why) : console.error(why);
    if (typeof task === "string") drop(task).catch(() => {});
  }

  // One tab per session: hold the task's lock while this tab runs it.
  async function lock(task) {
    if (!navigator.locks) return true; // no Web Locks: nothing to check
    return new Promise((resolve) => {
      navigator.locks.request("peerlearn-session-" + task, { ifAvailable: true }, (l) => {
        resolve(l !== null);
        return l ? new Promise(() => {}) : undefined; // held as long as the page lives
      }).catch(() => resolve(true));
    });
  }

  // The task ID records are keyed by, from the task field (Go's parse:
  // "" is the server's default task); null when it cannot be told.
  function taskKey(field) {
    if (window.PeerLearn && typeof PeerLearn.taskID === "function") {
      const id = PeerLearn.taskID(field);
      return typeof id === "string" ? id : null;
    }
    const f = field.trim().toLowerCase();
    return /^[0-9a-f]{64}$/.test(f) ? f : null;
  }
  // The peer's calls may answer at once or with a promise (a peer in a
  // worker): either way an Error, a rejection or a value.
  async function call(fn) {
    try { return await fn(); } catch (e) { return e instanceof Error ? e : new Error(String(e)); }
  }

  let pending = null; // the record to import at the next join
  page.hooks.push({
    // On load: a saved session of the task in the field (or, with no
    // ?task=, the most recent one) joins by itself.
    async ready() {
      let recs;
      try { recs = await all(); } catch (e) { note("Sessions cannot be kept in this browser: " + e.message); return false; }
      if (!recs.length) return false;
      const field = taskKey($("task").value);
      let rec = field ? recs.find((r) => r.task === field) : null;
      if (!rec && !new URLSearchParams(location.search).get("task")) {
        rec = recs.slice().sort((a, b) => (b.savedAt || 0) - (a.savedAt || 0))[0];
      }
      if (!rec) return false;
      if (typeof rec.seed !== "string" || !/^[0-9a-f]{64}$/.test(rec.seed) || typeof rec.task !== "string") {
        refuse(rec.task, "A saved session was damaged (no valid key) and has been dropped.");
        return false;
      }
      if (!(await lock(rec.task))) {
        note("Your saved session runs in another tab of this browser: not resumed here.");
        return false;
      }
      $("task").value = rec.task;
      $("task").dispatchEvent(new Event("input"));
      sessionStorage.setItem("peerlearn-seed", rec.seed);
      pending = rec;
      note(`Resuming your session: peer ${String(rec.id).slice(0, 8)}…, round ${rec.round}.`);
      page.join();
      return true;
    },
    // Before any join: the saved session of this task and key, if any.
    async beforeJoin(peer) {
      const task = taskKey($("task").value);
      let rec = pending;
      pending = null;
      rs.restored = null;
      rs.savedRound = -1; // a fresh learner saves from its first round
      if (!rec) {
        try { rec = (await all()).find((r) => r.task === task && r.id === peer.id); } catch (_) { rec = null; }
      }
      if (!rec) return;
      const r = await call(() => peer.importState(rec));
      if (r instanceof Error) {
        refuse(rec.task, "Saved session not resumed, starting afresh (it has been dropped): " + r.message);
        return;
      }
      rs.restored = { task: rec.task, id: rec.id, round: rec.round };
      rs.againMS = 0;
      rs.savedRound = rec.round;
    },
    event(ev) {
      if (ev.type === "resume" && !ev.ok) {
        rs.restored = null;
        rs.savedRound = -1;
        refuse(page.status ? page.status.task : taskKey($("task").value), ev.message + " (the saved session has been dropped)");
      }
      if (ev.type === "moved") {
        note(`Moved to a new place: peer ${ev.previous.slice(0, 8)}… is now ${ev.id.slice(0, 8)}…; the session is kept under the new key.`);
        save(true);
        return;
      }
      if (ev.type !== "status") return;
      const s = ev.status;
      if (rs.restored && !rs.againMS && s.learn && s.learn.rounds > rs.restored.round) {
        rs.againMS = performance.now();
        note(`Resumed: peer ${s.id.slice(0, 8)}… training again at round ${s.learn.rounds}, ${(rs.againMS / 1000).toFixed(1)} s after the page loaded.`);
      }
      save();
    },
  });

  // save writes the peer's session when a round has ended since the
  // last write, at most every SAVE_MS; moved (a move's new key), at
  // once, whatever was saved, after a write under way.
  async function save(moved) {
    const peer = page.peer;
    if (!peer || peer === rs.forgotten) return;
    if (rs.saving) {
      rs.resave = rs.resave || !!moved; // the write under way may be of the old key
      return;
    }
    if (!moved && performance.now() - rs.savedAt < SAVE_MS) return;
    rs.saving = true;
    rs.resave = false;
    try {
      // null: no round after the saved one. The record carries the key
      // it is of (id and seed, read together by the peer).
      const rec = await call(() => peer.exportState(moved ? -1 : rs.savedRound));
      if (peer === rs.forgotten) return;
      const seed = rec && !(rec instanceof Error) && rec.seed;
      if (!seed) {
        // After a move a record of the old key must not stay: a reload
        // would go back to the place the tab left.
        if (moved) await drop(page.status ? page.status.task : taskKey($("task").value));
        return;
      }
      await put({ ...rec, seed, savedAt: Date.now() });
      rs.savedRound = rec.round;
      rs.savedAt = performance.now();
      lock(rec.task);
    } catch (e) {
      note("Could not keep the session: " + e.message);
      if (moved) drop(page.status ? page.status.task : taskKey($("task").value)).catch(() => {}); // not the old key's either
    } finally {
      rs.saving = false;
      if (rs.resave) save(true);
    }
  }

  $("forget").addEventListener("click", async () => {
    rs.forgotten = page.peer;
    pending = null;
    try {
      if (page.peer && ["starting", "loading", "joining", "member"].includes(page.status && page.status.state)) await page.peer.leave();
    } catch (e) { page.showError && page.showError("Leave: " + e.message); }
    try {
      while (rs.saving) await new Promise((r) => setTimeout(r, 50)); // a write under way lands first
      await clear();
      sessionStorage.removeItem("peerlearn-seed");
      rs.restored = null;
      rs.savedRound = -1;
      note("Forgotten: this browser keeps no key, model or round of yours. Joining again starts a new peer.");
    } catch (e) { note("Could not forget: " + e.message); }
  });
})();
