// PeerLearn page: the task as a whole (issue #24 item 7), from the
// server's GET /tasks/{id}/progress: how many peers report, the median
// of their test accuracies and the samples they have trained, all from
// the summaries of the peers that chose to share them (the box in the
// join form). Claims, as the page says; nothing here feeds training.
// Loaded after app.js (its $ and page).
"use strict";

(() => {
  const hexTaskID = /^[0-9a-f]{64}$/;
  let last = 0;

  function samplesText(n) {
    if (n >= 1e9) return (n / 1e9).toFixed(1) + " billion";
    if (n >= 1e6) return (n / 1e6).toFixed(1) + " million";
    if (n >= 1e3) return (n / 1e3).toFixed(1) + " thousand";
    return String(n);
  }

  async function refresh() {
    const id = page.status && page.status.task;
    if (!id || !hexTaskID.test(id) || params.get("signal")) return; // another server's task: not asked here
    if (Date.now() - last < 10000) return;
    last = Date.now();
    try {
      const resp = await fetch(`/tasks/${id}/progress`, { cache: "no-store", headers: { Accept: "application/json" } });
      if (!resp.ok) return; // an older server, or a task it no longer hosts
      const p = await resp.json();
      const now = p && p.now;
      if (!now || typeof now.reporting !== "number") return;
      $("swarm").textContent = now.reporting === 0
        ? `${now.peers} peers; none shares its progress`
        : `${now.reporting} of ${now.peers} peers report` +
          (typeof now.accuracy === "number" ? `: median accuracy ${(100 * now.accuracy).toFixed(1)}%` : "") +
          `, ${samplesText(now.samples)} samples trained (their own claims)`;
    } catch (_) { /* the server gone: training goes on, the line stays */ }
  }
  setInterval(refresh, 2000);
})();
