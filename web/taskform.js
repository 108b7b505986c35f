// PeerLearn page: the task creation form (issue #24 item 4). Shown only
// where the server's operator lets pages create tasks (-task-create):
// GET /tasks then carries "create", with the choices and the default
// spec the form starts from. The form POSTs a whole spec to /tasks; the
// server checks it as `peerlearn task check` does, and its error, which
// names the field, is shown as it is. Loaded after app.js, whose task
// list (taskList, fetchTaskList, renderTaskList) it refreshes and whose
// Task field it fills with the new task, so Join joins it.
"use strict";

(() => {
  const form = { info: null };

  function fillSelect(sel, values, selected) {
    sel.replaceChildren(...values.map((v) => {
      const o = document.createElement("option");
      o.value = o.textContent = v;
      return o;
    }));
    if (values.includes(selected)) sel.value = selected;
  }

  // specFromForm is the template with the form's fields, and what the
  // chosen method requires of the rest (validate.go's validMethod): the
  // four methods other than FedLay mix by their own weights (aggregator
  // "mean"), PENS chooses neighbours by its policy, Plexus starts every
  // peer from one model.
  function specFromForm(tmpl) {
    const spec = JSON.parse(JSON.stringify(tmpl));
    spec.name = $("create-name").value.trim();
    spec.dataset = $("create-dataset").value;
    spec.arch = $("create-arch").value;
    const method = $("create-method").value;
    spec.method = method === "fedlay" ? "" : method;
    const codec = $("create-codec").value;
    spec.codec = codec === "f32" ? "" : codec;
    spec.max_peers = Number($("create-max-peers").value);
    spec.max_rounds = Number($("create-max-rounds").value);
    if (method !== "fedlay") spec.aggregator = "mean";
    if (method === "pens") spec.selection = { policy: "pens", k: 3 };
    if (method === "plexus") spec.init = Object.assign({}, spec.init, { mode: "common" });
    return spec;
  }

  function show(info) {
    form.info = info;
    const t = info.template;
    fillSelect($("create-dataset"), info.datasets, t.dataset);
    fillSelect($("create-arch"), info.archs, t.arch);
    fillSelect($("create-method"), info.methods, t.method || "fedlay");
    fillSelect($("create-codec"), info.codecs, t.codec || "f32");
    $("create-max-peers").value = t.max_peers;
    $("create-max-rounds").value = t.max_rounds;
    $("create-left").textContent = `(${info.left} more on this server)`;
    $("create-card").hidden = false;
  }

  async function create(ev) {
    ev.preventDefault();
    const out = $("create-result");
    if (!form.info) return;
    const spec = specFromForm(form.info.template);
    $("create-submit").disabled = true;
    out.textContent = "creating…";
    try {
      const resp = await fetch("/tasks", {
        method: "POST", cache: "no-store",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(spec),
      });
      const text = await resp.text();
      if (!resp.ok) throw new Error(text.trim() || `${resp.status}`);
      const made = JSON.parse(text);
      if (!made || !hexTaskID.test(made.id)) throw new Error("the server's answer has no task ID");
      const url = new URL(location.href);
      url.search = "";
      url.searchParams.set("task", made.id);
      out.replaceChildren(
        document.createTextNode(made.existing ? `"${made.name}" was hosted already. ` : `Created "${made.name}". `),
        Object.assign(document.createElement("a"), { href: url.href, textContent: "Join link", id: "create-link" }),
        document.createTextNode(" — send it to volunteers; Join above joins this task."));
      appendLog([`task ${made.name} ${made.existing ? "exists" : "created"}: ${made.id}`]);
      $("task").value = made.id;
      try {
        taskList.tasks = await fetchTaskList();
        renderTaskList();
        $("task-pick").hidden = false;
        if (taskList.create) $("create-left").textContent = `(${taskList.create.left} more on this server)`;
      } catch (_) { /* the field holds the ID; the list catches up on focus */ }
    } catch (e) {
      out.textContent = "Not created: " + e.message;
    } finally {
      $("create-submit").disabled = false;
    }
  }

  $("create-form").addEventListener("submit", create);
  (async () => {
    if (params.get("signal")) return; // another server's page: not ours to create tasks on
    try {
      await fetchTaskList();
    } catch (_) {
      return; // no list, no form (app.js says why)
    }
    const info = taskList.create;
    if (info && info.left > 0 && Array.isArray(info.datasets) && info.datasets.length && info.template) show(info);
  })();
})();
