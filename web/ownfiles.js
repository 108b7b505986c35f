// PeerLearn page: a task with a data set of its own (issue #24 item 2).
// When the task picked in the list trains on its own data ("own data":
// an image folder or CSV files its manifest describes), the page offers
// a folder or a CSV file instead of the server's demo shard. The files
// are read here, into this tab's memory only, and handed to the peer,
// which checks them against the task when it joins (wasm/owndata.go):
// the task's data folder as its manifest lists it, or the volunteer's own
// files of its form; the message says what does not fit. Nothing is
// uploaded. Loaded after app.js (its $, taskList).
"use strict";

(() => {
  const maxBytes = 512 << 20; // engine/data MaxOwnBytes
  const maxFiles = 1 << 16; //   MaxOwnFiles
  window.peerlearnOwnFiles = [];

  function mb(n) { return (n / 1e6).toFixed(1) + " MB"; }

  async function read(files) {
    if (files.length > maxFiles) throw new Error(`${files.length} files: at most ${maxFiles}`);
    const total = files.reduce((s, f) => s + f.size, 0);
    if (total > maxBytes) throw new Error(`${mb(total)}: at most ${mb(maxBytes)} together`);
    const out = [];
    for (const f of files) {
      out.push({ path: f.webkitRelativePath || f.name, data: new Uint8Array(await f.arrayBuffer()) });
    }
    return { out, total };
  }

  async function picked(e) {
    const files = [...e.target.files];
    const other = e.target.id === "own-folder" ? $("own-csv") : $("own-folder");
    other.value = ""; // one pick at a time
    $("files-summary").textContent = "Reading…";
    try {
      const { out, total } = await read(files);
      window.peerlearnOwnFiles = out;
      $("files-summary").textContent = `${out.length} file${out.length === 1 ? "" : "s"}, ${mb(total)}, read in this tab; checked against the task when you join.`;
    } catch (err) {
      window.peerlearnOwnFiles = [];
      $("files-summary").textContent = "Not used: " + err.message;
    }
  }

  // sync shows the files choice for a task with its own data and the
  // server's shard otherwise (the server has no shard of a task's own
  // data set).
  function sync() {
    const id = $("task").value.trim().toLowerCase();
    const t = taskList.tasks.find((x) => x.id === id);
    const own = !!t && t.data === "own data";
    $("files-radio").hidden = !own;
    const server = document.querySelector('input[name="source"][value="server"]');
    server.disabled = own;
    const sel = document.querySelector('input[name="source"]:checked');
    if (own && sel.value !== "files") {
      document.querySelector('input[name="source"][value="files"]').checked = true;
    } else if (!own && sel.value === "files") {
      server.checked = true;
    }
    const src = document.querySelector('input[name="source"]:checked').value;
    $("files-box").hidden = src !== "files";
    $("own-box").hidden = src !== "own";
    $("files-form").textContent = own ? `${t.name} trains a ${t.model} model on its own data set.` : "";
  }

  $("own-folder").addEventListener("change", picked);
  $("own-csv").addEventListener("change", picked);
  $("task-list").addEventListener("change", sync);
  $("task").addEventListener("input", sync);
  document.querySelectorAll('input[name="source"]').forEach((r) => r.addEventListener("change", sync));
  // The list arrives after load (app.js); follow it for a while.
  let tries = 0;
  const wait = setInterval(() => {
    if (taskList.tasks.length || ++tries > 100) { clearInterval(wait); sync(); }
  }, 100);
})();
