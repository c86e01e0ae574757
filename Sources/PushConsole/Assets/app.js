"use strict";
const $ = (sel) => document.querySelector(sel);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const ROW = 28;
const state = { rows: [], nextBefore: null, latestID: 0, total: 0, loading: false, selected: null, filter: { q: "", platform: "", outcome: "" }, fresh: new Set() };

async function api(path, options) {
  const res = await fetch(path, options);
  const body = await res.json();
  if (!res.ok) { const e = new Error(body.error || res.statusText); e.body = body; throw e; }
  return body;
}

// ---- tabs ----
function showTab(name) {
  document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.id === "tab-" + name));
  if (name === "devices") (state.relay ? loadRelayDevices() : loadDevices()).catch(() => {});
  if (name === "metrics") (state.relay ? loadRelayMetrics() : loadMetrics()).catch(() => {});
  if (name === "log") renderRows();
}
$("#tabs").addEventListener("click", (e) => { if (e.target.dataset.tab) location.hash = e.target.dataset.tab; });
window.addEventListener("hashchange", () => showTab(location.hash.slice(1) || "log"));

// ---- the log: pages from the server, only the visible rows in the DOM ----
function filterQuery() {
  const f = state.filter, p = new URLSearchParams();
  if (f.q) p.set("q", f.q); if (f.platform) p.set("platform", f.platform); if (f.outcome) p.set("outcome", f.outcome);
  return p;
}
function matches(push) {
  const f = state.filter;
  if (f.platform && push.platform !== f.platform) return false;
  if (f.outcome && (push.status >= 200 && push.status < 300) !== (f.outcome === "accepted")) return false;
  if (!f.q) return true;
  const q = f.q.toLowerCase();
  return [push.target, push.device, push.messageID, push.uniqueID, push.deliveryID, push.reason, push.app].some((v) => v && v.toLowerCase().includes(q));
}
async function loadPage(reset) {
  if (state.loading || (!reset && state.nextBefore === null)) return;
  state.loading = true;
  try {
    const p = filterQuery();
    p.set("limit", "200");
    if (!reset && state.nextBefore) p.set("before", state.nextBefore);
    const page = await api("/console/api/pushes?" + p);
    if (reset) { state.rows = []; $("#log-view").scrollTop = 0; }
    state.rows.push(...page.pushes);
    state.nextBefore = page.nextBefore ?? null;
    state.total = page.total;
    if (reset) state.latestID = Math.max(state.latestID, page.latestID);
  } finally { state.loading = false; }
  renderRows();
}
function time(ms) { const d = new Date(ms); return d.toLocaleTimeString([], { hour12: false }) + "." + String(d.getMilliseconds()).padStart(3, "0"); }
function statusText(p) { return p.status >= 200 && p.status < 300 ? `<span class="ok">${p.status}</span>` : `<span class="bad">${p.status} ${esc(p.reason)}</span>`; }
function renderRows() {
  const view = $("#log-view");
  $("#log-spacer").style.height = state.rows.length * ROW + "px";
  const first = Math.max(0, Math.floor(view.scrollTop / ROW) - 10);
  const last = Math.min(state.rows.length, first + Math.ceil(view.clientHeight / ROW) + 20);
  const html = [];
  for (let i = first; i < last; i++) {
    const p = state.rows[i];
    const cls = ["row", p.id === state.selected ? "selected" : "", state.fresh.has(p.id) ? "fresh" : ""].join(" ");
    html.push(`<div class="${cls}" data-id="${p.id}"><span class="mono">${time(p.receivedAt)}</span><span>${p.platform.toUpperCase()}</span>` +
      `<span>${esc(p.app)}</span><span class="mono">${esc(p.target)}</span><span>${esc(p.pushType || "")}</span><span>${statusText(p)}</span>` +
      `<span class="mono">${esc(p.messageID)}</span></div>`);
  }
  const rows = $("#log-rows");
  rows.style.transform = `translateY(${first * ROW}px)`;
  rows.innerHTML = html.join("");
  const shown = state.rows.length;
  $("#count").textContent = `${state.total.toLocaleString()} push${state.total === 1 ? "" : "es"} in the log` + (shown < state.total || state.filter.q ? ` · ${shown.toLocaleString()} loaded` : "");
  if (view.scrollTop + view.clientHeight > shown * ROW - 400) loadPage(false);
}
$("#log-view").addEventListener("scroll", () => requestAnimationFrame(renderRows));
$("#log-rows").addEventListener("click", (e) => { const r = e.target.closest(".row"); if (r) openPush(Number(r.dataset.id)); });
let searchTimer;
function filterChanged() {
  state.filter = { q: $("#search").value.trim(), platform: $("#f-platform").value, outcome: $("#f-outcome").value };
  clearTimeout(searchTimer); searchTimer = setTimeout(() => loadPage(true), 150);
}
$("#search").addEventListener("input", filterChanged);
$("#f-platform").addEventListener("change", filterChanged);
$("#f-outcome").addEventListener("change", filterChanged);

// ---- live stream: server-sent events, one batch per event ----
function connect() {
  const live = $("#live");
  const source = new EventSource("/console/api/events?after=" + state.latestID);
  source.addEventListener("pushes", (e) => {
    const batch = JSON.parse(e.data);
    const view = $("#log-view"), atTop = view.scrollTop < ROW;
    let added = 0;
    for (const p of batch) {
      if (p.id <= state.latestID) continue;
      state.latestID = p.id; state.total++;
      if (!matches(p)) continue;
      state.rows.unshift(p); added++;
      if (batch.length < 50) { state.fresh.add(p.id); setTimeout(() => state.fresh.delete(p.id), 1500); }
    }
    if (!atTop) view.scrollTop += added * ROW;
    live.className = "live on"; live.textContent = "live";
    renderRows();
  });
  source.addEventListener("open", () => { live.className = "live on"; live.textContent = "live"; });
  // Each answer of the stream ends after its batch and the browser reconnects (readyState
  // CONNECTING): that is the normal rhythm. Only a closed source means the server went away.
  source.addEventListener("error", () => { if (source.readyState === EventSource.CLOSED) { live.className = "live off"; live.textContent = "reconnecting…"; setTimeout(connect, 1000); } });
}

// ---- one push: answer, headers, payload with findings, and the device ----
async function openPush(id, tries = 0) {
  state.selected = id; renderRows();
  const panel = $("#detail");
  let d;
  try { d = await api("/console/api/pushes/" + id); } catch (e) { panel.innerHTML = `<p class="bad">${esc(e.message)}</p>`; return; }
  if (state.selected !== id) return;
  const p = d.push;
  let html = `<h2>Push ${p.id} · ${p.platform.toUpperCase()} · ${statusText(p)}</h2>` + kv([
    ["received", esc(new Date(p.receivedAt).toISOString())], ["source", esc(p.source)], ["app", esc(p.app)], ["target", esc(p.target)],
    ["device", esc(p.device)], ["push type", esc(p.pushType)], [p.platform === "apns" ? "apns-id" : "message name", esc(p.messageID)],
    ["apns-unique-id", esc(p.uniqueID)], ["delivery id", esc(p.deliveryID)]]);
  html += `<div id="device-of-push"></div>`;
  html += `<h2>Answer</h2>` + kv([["status", String(d.answer.status)], ...Object.entries(d.answer.headers).map(([k, v]) => [k, esc(v)]), ["body", esc(d.answer.body) || "<span class=muted>(empty)</span>"]]);
  const v = d.validation;
  html += `<h2>Payload <span class="muted">${esc(v.format || "")} ${v.byteCount ?? "?"}/${v.byteLimit ?? "?"} bytes · ${v.findings.length} finding(s)</span></h2>` + renderJSON(d.payload, v.findings);
  html += `<h2>Request headers</h2>` + kv(Object.keys(d.headers).sort().map((k) => [k, esc(d.headers[k])]));
  panel.innerHTML = html;
  if (d.device) $("#device-of-push").innerHTML = renderDevice(d.device);
  else if (p.status === 200 && tries < 20) { $("#device-of-push").innerHTML = `<h2>Device</h2><p class="muted">waiting for the extension…</p>`; setTimeout(() => { if (state.selected === id) openPush(id, tries + 1); }, 300); }
}

// Pretty JSON, each line knowing its JSON pointer, findings shown under the line they point at.
function renderJSON(text, findings) {
  let value;
  try { value = JSON.parse(text); } catch (e) {
    return `<div class="json">${text.split("\n").map((l) => `<div class="line">${esc(l)}</div>`).join("")}</div>` + findingList(findings);
  }
  const lines = [];
  const ptr = (base, key) => base + "/" + String(key).replace(/~/g, "~0").replace(/\//g, "~1");
  function walk(v, pointer, indent, prefix, comma) {
    const pad = "  ".repeat(indent);
    if (v && typeof v === "object") {
      const isArray = Array.isArray(v), entries = isArray ? v.map((x, i) => [i, x]) : Object.entries(v);
      if (entries.length === 0) { lines.push({ pointer, text: pad + prefix + (isArray ? "[]" : "{}") + comma }); return; }
      lines.push({ pointer, text: pad + prefix + (isArray ? "[" : "{") });
      entries.forEach(([k, x], i) => walk(x, ptr(pointer, k), indent + 1, isArray ? "" : JSON.stringify(k) + ": ", i < entries.length - 1 ? "," : ""));
      lines.push({ pointer, text: pad + (isArray ? "]" : "}") + comma, closing: true });
    } else lines.push({ pointer, text: pad + prefix + JSON.stringify(v) + comma });
  }
  walk(value, "", 0, "", "");
  const at = new Map();
  for (const f of findings) {
    // A finding about a missing member points below any line: show it at its nearest ancestor.
    let p = f.pointer ?? "";
    while (p && !lines.some((l) => l.pointer === p)) p = p.slice(0, p.lastIndexOf("/"));
    const i = lines.findIndex((l) => l.pointer === p && !l.closing);
    const k = i < 0 ? 0 : i;
    at.set(k, [...(at.get(k) || []), f]);
  }
  return `<div class="json">` + lines.map((l, i) => {
    const fs = at.get(i) || [];
    const sev = fs.some((f) => f.severity === "error") ? "error" : "warning";
    return `<div class="line${fs.length ? " flag " + sev : ""}" data-pointer="${esc(l.pointer)}">${esc(l.text)}</div>` +
      fs.map((f) => `<div class="finding-note ${esc(f.severity)}" data-pointer="${esc(f.pointer ?? "")}"><code>${esc(f.pointer ?? f.header ?? "-")}</code> ${esc(f.rule)} ${esc(f.severity)}: ${esc(f.message)}<span class="fix">fix: ${esc(f.fix)}</span></div>`).join("");
  }).join("") + `</div>`;
}
function findingList(findings) {
  if (!findings.length) return `<ul class="findings"><li class="clean">no findings</li></ul>`;
  return `<ul class="findings">` + findings.map((f) => `<li class="${esc(f.severity)}" data-pointer="${esc(f.pointer ?? "")}"><code>${esc(f.pointer ?? (f.header ? "header " + f.header : "-"))}</code>` +
    `${f.line ? ` <span class="muted">line ${f.line}:${f.column}</span>` : ""} <b>${esc(f.rule)}</b> ${esc(f.severity)}: ${esc(f.message)}<span class="fix">fix: ${esc(f.fix)}</span></li>`).join("") + `</ul>`;
}

// ---- the device: lock-screen preview, extension timeline against the budget, tap ----
function preview(n, app, imageURL) {
  const badge = n.badge != null ? `<span class="badge">${esc(n.badge)}</span>` : "";
  return `<div class="lock"><div class="notif"><div class="app"><span>${esc(app)}${badge}</span><span>now</span></div>` +
    (imageURL ? `<img alt="attached image" src="${esc(imageURL)}">` : "") +
    `<div class="title">${esc(n.title)}</div><div class="subtitle">${esc(n.subtitle)}</div><div class="body">${esc(n.body)}</div></div></div>`;
}
// The bars against the whole budget (`spanMs` = budget) or zoomed to the work (`spanMs` smaller).
function timelineChart(bars, spanMs) {
  const W = 560, left = 120, right = 16, rowH = 26, all = bars.bars;
  const H = 34 + rowH * (all.length + 1);
  const scale = (ms) => left + (W - left - right) * Math.min(ms, spanMs) / spanMs;
  let svg = `<svg class="chart" role="img" aria-label="extension timeline" viewBox="0 0 ${W} ${H}" width="100%">`;
  svg += `<rect class="budget" x="${left}" y="4" width="${W - left - right}" height="${H - 26}"/>`;
  for (let i = 0; i <= 4; i++) { const ms = spanMs * i / 4, x = scale(ms); svg += `<line class="grid" x1="${x}" x2="${x}" y1="4" y2="${H - 22}"/><text x="${x}" y="${H - 8}" text-anchor="middle">${spanMs >= 10000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms) + " ms"}</text>`; }
  all.forEach((b, i) => {
    const y = 10 + i * rowH, x = scale(b.startMs), w = Math.max(3, scale(b.endMs) - x);
    svg += `<text x="${left - 8}" y="${y + 14}" text-anchor="end">${esc(b.label)}</text>`;
    svg += `<rect x="${x}" y="${y}" width="${w}" height="18" rx="3" fill="${b.finished ? "#2f5bea" : "#e0a030"}"><title>${esc(b.outcome)} (${b.startMs}–${b.endMs} ms)</title></rect>`;
    svg += `<text x="${Math.min(x + w + 6, W - 120)}" y="${y + 14}">${b.endMs - b.startMs} ms</text>`;
  });
  const y = 10 + all.length * rowH;
  svg += `<text x="${left - 8}" y="${y + 14}" text-anchor="end">budget</text>` + (spanMs >= bars.budgetMs ? `<text x="${W - right}" y="${y + 14}" text-anchor="end">expiry ${bars.budgetMs} ms</text>` : "");
  for (const m of bars.marks) { if (m.atMs > spanMs) continue; const x = scale(m.atMs); svg += `<line x1="${x}" x2="${x}" y1="4" y2="${H - 22}" stroke="${m.label === "expired" ? "#c0392b" : "#1a7f43"}" stroke-width="2"/><text x="${x + 4}" y="${y + 14}">${esc(m.label)} ${m.atMs} ms</text>`; }
  return svg + `</svg>`;
}
// A two-column table of [name, HTML] rows; rows without a value are left out.
function kv(rows) {
  return `<table class="kv">${rows.filter((r) => r[1] !== undefined && r[1] !== null && r[1] !== "").map(([k, v]) => `<tr><td>${esc(k)}</td><td class="mono">${v}</td></tr>`).join("")}</table>`;
}
// The Android shade: app label, title, body, the big picture; then channel, metric, tap.
function shade(n, label, imageURL) {
  return `<div class="shade"><div class="notif android"><div class="app"><span>${esc(label)}</span><span>now</span></div>` +
    `<div class="title">${esc(n.title)}</div><div class="body">${esc(n.body)}</div>` +
    (imageURL ? `<img class="big" alt="notification picture" src="${esc(imageURL)}">` : "") + `</div></div>`;
}
function renderAndroid(d) {
  const a = d.android, r = a.report, n = r.notification, m = r.metric;
  let html = `<h2>Device · ${esc(d.device)} <span class="muted">Android · ${esc(d.app)}</span></h2>`;
  const img = n && n.image && n.image.shown ? "/console/api/images/" + encodeURIComponent(d.messageID) : null;
  html += n ? shade(n, a.appLabel, img) : `<p class="muted">nothing in the shade: ${esc(r.notShownReason || "")}</p>`;
  const rows = [["handled by", esc(r.handledBy) + ` <span class="muted">(${esc(r.messageType)}, app ${esc(r.effectiveState)}${r.highPriority ? ", high priority" : ""})</span>`]];
  if (n) {
    rows.push(["channel", `<span id="android-channel">${esc(n.channelID)}</span> <span class="muted">importance ${n.channelImportance} · ${esc(n.style)}</span>`]);
    if (n.image) rows.push(["image", n.image.shown ? `shown (${esc(n.image.format)}, ${n.image.bytes} bytes, ${n.image.elapsedMs} ms)` : `<span class="warn">not shown [${esc(n.image.code)}] ${esc(n.image.reason)}</span>`]);
  }
  rows.push(["delivered metric", m ? `<span id="android-metric">${esc(m.fate)}</span> <span class="muted">· pending store ${m.storeEntriesAtEnd} entr${m.storeEntriesAtEnd === 1 ? "y" : "ies"} at the end${m.jobStillEnqueued ? " · WorkManager job still enqueued" : ""}${m.queuedInApp ? ` · ${m.queuedInApp} queued in the app` : ""}</span>` : `<span class="muted">not tracked${r.duplicate ? " (duplicate)" : ""}</span>`]);
  html += kv(rows);
  if (a.tap) html += `<div class="tap"><b>Tap</b> → <span id="android-tap">${esc(a.tap.route)}</span> ${esc(a.tap.target || "")} <span class="muted">(${esc(a.tap.delivery)}${a.tap.coldStart ? ", cold start" : ""}; task ${esc(a.tap.stack.join(" → "))}; ${a.tap.openedMetrics} opened metric${a.tap.openedMetrics === 1 ? "" : "s"})</span></div>`;
  const lines = r.timeline.map((e) => `t+${e.atMs} ms  ${esc(e.event)}`).concat(m ? m.timeline.map((e) => `metric t+${e.atMs} ms  ${esc(e.event)}`) : []);
  html += `<details><summary>timeline lines</summary><pre>${lines.join("\n")}</pre></details>`;
  return html;
}
// A virtual iPhone with the Retainza SDK: the alert, the handler and its ack, the phone's timeline.
function renderRetainza(d) {
  const r = d.retainza;
  let html = `<h2>Device · ${esc(d.device)} <span class="muted">iPhone · ${esc(d.app)} · Retainza SDK</span></h2>`;
  html += r.title || r.body ? preview({title: r.title, body: r.body}, d.app, null) : `<p class="muted">(no alert)</p>`;
  html += kv([["Retainza message", r.messageID ? `<span id="retainza-message">${esc(r.messageID)}</span>` : `<span class="warn">not a Retainza push</span>`],
              ["handler", r.handler ? `<span id="retainza-handler">${esc(r.handler)}</span>` : `<span class="muted">none (shown by iOS; the tap decides)</span>`],
              ["ack", r.ack ? esc(r.ack) : null]]);
  // `at` is milliseconds since 1970 (ConsoleAPI.encode), a number: Date.parse of it is NaN.
  const t0 = r.timeline.length ? r.timeline[0].at : 0;
  html += `<h2>Timeline <span class="muted">the phone's SDK, launches and calls</span></h2><pre id="retainza-timeline">` +
    r.timeline.map((e) => `t+${Math.round((e.at - t0) / 1000)} s  ${esc(e.kind.padEnd(8))} ${esc(e.text)}`).join("\n") + `</pre>`;
  return html;
}
function renderDevice(d) {
  if (d.android) return renderAndroid(d);
  if (d.retainza) return renderRetainza(d);
  let html = `<h2>Device · ${esc(d.device)}</h2>`;
  if (!d.report) return html + `<p class="warn">not run: ${esc(d.skipped)}</p>`;
  const r = d.report, n = r.notification;
  const img = n && n.attachments && n.attachments.length ? "/console/api/images/" + encodeURIComponent(d.messageID) : null;
  html += n ? preview(n, d.app, img) : `<p class="muted">nothing shown (${esc(r.note || r.delivered)})</p>`;
  html += `<p class="muted">shown: ${esc(r.delivered)} content · image ${esc(r.image.verdict)}${r.image.reason ? ": " + esc(r.image.reason) : ""} · delivered metric ${esc(r.metric.result)}</p>`;
  if (d.tap) html += `<div class="tap"><b>Tap</b> → ${esc(d.tap.summary)}` + (d.tap.tier ? ` <span class="muted">(tier ${d.tap.tier}: ${esc(d.tap.tierName)})</span>` : "") + `</div>`;
  if (d.bars) {
    html += `<h2>Extension timeline <span class="muted">against the ${d.bars.budgetMs / 1000} s budget</span></h2>` + timelineChart(d.bars, d.bars.budgetMs);
    const workMs = Math.max(1, ...d.bars.bars.map((b) => b.endMs), ...d.bars.marks.map((m) => m.atMs));
    if (workMs * 10 < d.bars.budgetMs) html += `<h2>Zoomed <span class="muted">the first ${Math.ceil(workMs * 1.2)} ms</span></h2>` + timelineChart(d.bars, Math.ceil(workMs * 1.2));
  }
  html += `<details><summary>timeline lines</summary><pre>${r.timeline.map((e) => `t+${e.tMs} ms  ${esc(e.event)}`).join("\n")}</pre></details>`;
  return html;
}
async function loadDevices() {
  const data = await api("/console/api/devices");
  const list = $("#device-list");
  if (!data.devices.length) { list.innerHTML = `<p class="muted">No virtual device: start pushlab serve --console.</p>`; return; }
  list.innerHTML = data.devices.map((dev) => `<h2>${esc(dev.name)} <span class="muted">${dev.platform === "android" ? "Android" : "iPhone"} · ${esc(dev.app)} · SDK ${esc(dev.sdkMode)}</span></h2>` +
    (dev.notifications.length ? dev.notifications.map((n, i) => `<div class="device-item" data-device="${esc(dev.name)}" data-i="${i}">${esc(n.report?.notification?.title || n.android?.report?.notification?.title || n.retainza?.title || n.skipped || "(no alert)")} <span class="muted">${time(n.receivedAt)}</span></div>`).join("") : `<p class="muted">no notifications yet</p>`)).join("");
  list.onclick = (e) => { const it = e.target.closest(".device-item"); if (!it) return; const dev = data.devices.find((x) => x.name === it.dataset.device); $("#device-detail").innerHTML = renderDevice(dev.notifications[Number(it.dataset.i)]); };
}

// ---- send form: fields write the JSON; the JSON is validated as you type ----
const field = (id) => $("#s-" + id).value.trim();
function buildPayload() {
  const alert = {};
  if (field("title")) alert.title = field("title"); if (field("subtitle")) alert.subtitle = field("subtitle"); if (field("body")) alert.body = field("body");
  const aps = {};
  if (Object.keys(alert).length) aps.alert = alert;
  if (field("badge")) aps.badge = /^-?\d+$/.test(field("badge")) ? Number(field("badge")) : field("badge");
  const payload = { aps };
  if (field("image") || field("link")) { aps["mutable-content"] = 1; payload.CIO = { push: {} }; if (field("link")) payload.CIO.push.link = field("link"); if (field("image")) payload.CIO.push.image = field("image"); }
  if (field("delivery")) { payload["CIO-Delivery-ID"] = field("delivery"); payload["CIO-Delivery-Token"] = "console-" + field("delivery"); }
  if ($("#s-platform").value === "fcm") return { message: { token: field("token"), apns: { payload } } };
  return payload;
}
document.querySelectorAll("[data-field]").forEach((el) => el.addEventListener("input", () => { $("#s-payload").value = JSON.stringify(buildPayload(), null, 2); validateSoon(); }));
["#s-platform", "#s-type", "#s-priority", "#s-topic", "#s-token"].forEach((s) => $(s).addEventListener("input", validateSoon));
$("#s-platform").addEventListener("change", () => { $("#s-payload").value = JSON.stringify(buildPayload(), null, 2); validateSoon(); });
$("#s-payload").addEventListener("input", validateSoon);
let validateTimer, validateSeq = 0;
function validateSoon() { clearTimeout(validateTimer); validateTimer = setTimeout(validateNow, 120); }
async function validateNow() {
  const seq = ++validateSeq, fcm = $("#s-platform").value === "fcm";
  const body = { payload: $("#s-payload").value, format: fcm ? "fcm" : "apns", pushType: fcm ? "" : $("#s-type").value, priority: fcm ? "" : $("#s-priority").value, topic: fcm ? "" : field("topic"), token: fcm ? "" : field("token") };
  let report;
  try { report = await api("/console/api/validate", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }); }
  catch (e) { $("#findings").innerHTML = `<li>${esc(e.message)}</li>`; return; }
  if (seq !== validateSeq) return;
  $("#findings").innerHTML = findingList(report.findings).replace(/^<ul class="findings">|<\/ul>$/g, "");
  $("#s-summary").textContent = `${report.format || "?"} · ${report.pushType || ""} push · ${report.byteCount ?? "?"}/${report.byteLimit ?? "?"} bytes · ${report.findings.filter((f) => f.severity === "error").length} error(s)`;
  let shown = {};
  try { const v = JSON.parse(body.payload); shown = fcm ? (v.message?.apns?.payload?.aps?.alert || v.message?.notification || {}) : (v.aps?.alert || {}); if (typeof shown === "string") shown = { body: shown }; } catch (_) {}
  $("#send-preview").innerHTML = preview({ title: shown.title, subtitle: shown.subtitle, body: shown.body, badge: null }, field("topic") || "app", null);
}
// Where the form sends: this lab's gateway, or (serve --console-profile) Apple's and Google's
// servers with a profile's credentials, which stay on the server. The host is always spelled out.
let sendTargets = [];
function currentTarget() { return sendTargets.find((t) => t.id === $("#s-target").value) || sendTargets[0]; }
function showHost() {
  const t = currentTarget(), fcm = $("#s-platform").value === "fcm";
  if (!t) { $("#s-host").textContent = ""; return; }
  const url = fcm ? t.fcmURL : t.apnsURL;
  $("#s-send").disabled = !url;
  if (!url) { $("#s-host").innerHTML = `<span class="bad">${esc(t.label)} has no ${fcm ? "FCM" : "APNs"} credentials</span>`; return; }
  const where = t.real ? `<b class="real">${fcm ? "Google's FCM" : "Apple's APNs " + esc(t.apnsEnvironment || "")} server — a real device gets it</b>` : `<b>${esc(t.label)}</b>`;
  $("#s-host").innerHTML = `${fcm ? "FCM" : "APNs"} push goes to <code id="s-host-url">${esc(url)}</code> · ${where}` + (t.id !== "lab" ? ` <span class="muted">(${esc(t.label)})</span>` : "");
}
async function loadTargets() {
  const status = await api("/console/api/status");
  sendTargets = status.targets || [];
  $("#s-target").innerHTML = sendTargets.map((t) => `<option value="${esc(t.id)}">${esc(t.label)}${t.real ? " (real service)" : ""}</option>`).join("");
  showHost();
}
$("#s-target").addEventListener("change", () => {
  const t = currentTarget();
  if (t && t.topic) $("#s-topic").value = t.topic;
  showHost();
  validateSoon();
});
$("#s-platform").addEventListener("change", showHost);
$("#send-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const out = $("#send-answer");
  out.innerHTML = `<p class="muted">sending…</p>`;
  const form = { target: $("#s-target").value, platform: $("#s-platform").value, token: field("token"), topic: field("topic"), pushType: $("#s-type").value, payload: $("#s-payload").value };
  if ($("#s-priority").value) form.priority = Number($("#s-priority").value);
  try {
    const a = await api("/console/api/send", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(form) });
    out.innerHTML = `<p class="${a.outcome === "accepted" ? "ok" : "bad"}" id="send-result">${esc(a.outcome)} ${a.status ?? ""} ${esc(a.reason || "")} · ${esc(a.id || "")}${a.detail ? " · " + esc(a.detail) : ""}</p>` +
      `<p class="muted" id="send-host">sent to ${esc(a.host || "?")}</p>`;
  } catch (err) {
    out.innerHTML = `<p class="bad" id="send-result">${esc(err.body?.field || "")} ${esc(err.message)}<br><span class="muted">fix: ${esc(err.body?.fix || "")}</span></p>`;
  }
});

// ---- metrics: the collector's report as charts ----
function barChart(title, items) {
  const W = 440, rowH = 24, left = 150, H = 20 + rowH * items.length, max = Math.max(1, ...items.map((i) => i.value));
  let svg = `<svg class="chart" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${esc(title)}">`;
  items.forEach((it, k) => { const y = 6 + k * rowH, w = (W - left - 60) * it.value / max;
    svg += `<text x="${left - 8}" y="${y + 14}" text-anchor="end">${esc(it.label)}</text><rect x="${left}" y="${y}" width="${Math.max(w, 1)}" height="17" rx="3" fill="${it.color || "#2f5bea"}"/><text x="${left + w + 6}" y="${y + 14}">${esc(it.text ?? it.value)}</text>`; });
  return `<div class="panel"><h2>${esc(title)}</h2>${svg}</svg></div>`;
}
function lineChart(title, series, xs) {
  const W = 440, H = 200, l = 36, b = 24, t = 10, r = 10;
  const x = (i) => l + (W - l - r) * (xs.length < 2 ? 0.5 : i / (xs.length - 1)), y = (v) => t + (H - t - b) * (1 - v);
  let svg = `<svg class="chart" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${esc(title)}">`;
  for (const v of [0, .5, 1]) svg += `<line class="grid" x1="${l}" x2="${W - r}" y1="${y(v)}" y2="${y(v)}"/><text x="${l - 4}" y="${y(v) + 4}" text-anchor="end">${v * 100}%</text>`;
  if (xs.length) { svg += `<text x="${l}" y="${H - 6}">${esc(xs[0])}</text><text x="${W - r}" y="${H - 6}" text-anchor="end">${esc(xs[xs.length - 1])}</text>`; }
  series.forEach((s, k) => {
    svg += `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${s.values.map((v, i) => `${x(i)},${y(v)}`).join(" ")}"/>`;
    svg += `<text x="${W - r - 4}" y="${t + 12 + 14 * k}" text-anchor="end" fill="${s.color}">${esc(s.label)}</text>`;
  });
  return `<div class="panel"><h2>${esc(title)}</h2>${svg}</svg></div>`;
}
const pct = (v) => v == null ? "–" : (v * 100).toFixed(1) + "%";
async function loadMetrics() {
  const data = await api("/console/api/metrics");
  const out = $("#metrics");
  $("#m-note").textContent = data.note || "";
  if (!data.report) { out.innerHTML = data.simulateChart ? `<div class="panel"><h2>simulate --chart</h2>${data.simulateChart}</div>` : ""; return; }
  const rep = data.report, tot = rep.totals;
  let html = `<div class="cards">` + [["sent", tot.sent ?? "–"], ["delivered", tot.delivered], ["opened", tot.opened], ["delivery rate", pct(tot.deliveryRate)], ["open rate", pct(tot.openRate)], ["recovered at launch", tot.recoveredAtLaunch], ["lost", tot.lost ?? "–"], ["duplicates", tot.duplicates]]
    .map(([k, v]) => `<div class="card"><span class="muted">${esc(k)}</span><b>${esc(v)}</b></div>`).join("") + `</div><div class="charts">`;
  html += barChart("Recovered vs lost vs duplicated", [
    { label: "delivered live", value: tot.deliveredLive, color: "#2f5bea" }, { label: "recovered at launch", value: tot.recoveredAtLaunch, color: "#1a7f43" },
    { label: "lost", value: tot.lost ?? 0, color: "#c0392b" }, { label: "duplicated", value: tot.duplicatedDeliveries, color: "#b7791f" }]);
  // Rates over time: deliveries bucketed by when they were sent (else first seen).
  const ds = rep.deliveries.map((d) => ({ t: d.sentAt ?? d.firstSeen, d })).sort((a, b) => a.t - b.t);
  if (ds.length) {
    const n = Math.min(20, ds.length), t0 = ds[0].t, t1 = ds[ds.length - 1].t, span = Math.max(1, t1 - t0), buckets = Array.from({ length: n }, () => ({ c: 0, dl: 0, op: 0 }));
    for (const { t, d } of ds) { const b = buckets[Math.min(n - 1, Math.floor((t - t0) / span * n))]; b.c++; if (d.delivered > 0) b.dl++; if (d.opened > 0) b.op++; }
    const used = buckets.map((b, i) => ({ ...b, i })).filter((b) => b.c > 0);
    html += lineChart("Delivery and open rates over time", [
      { label: "delivered", color: "#2f5bea", values: used.map((b) => b.dl / b.c) }, { label: "opened", color: "#1a7f43", values: used.map((b) => b.op / b.c) }],
      used.length ? [time(t0), time(t1)] : []);
  }
  html += barChart("Delivered by route, share of all sent", rep.byRoute.map((s) => ({ label: s.group, value: s.deliveryRate ?? 0, text: pct(s.deliveryRate) })));
  html += barChart("Delivered by SDK, share of all sent", rep.bySDK.map((s) => ({ label: s.group, value: s.deliveryRate ?? 0, text: pct(s.deliveryRate) })));
  if (data.simulateChart) html += `<div class="panel"><h2>simulate --chart</h2>${data.simulateChart}</div>`;
  out.innerHTML = html + `</div>`;
}
$("#m-refresh").addEventListener("click", () => (state.relay ? loadRelayMetrics() : loadMetrics()).catch(() => {}));

// ---- the relay's console (pushlab relay --console): send through the native API, tokens, counters ----
const relay = { apps: [], metrics: null, timer: null };
async function relayMode() {
  const o = await api("/console/api/relay");
  state.relay = true; relay.apps = o.apps;
  ["#lab-send", "#lab-devices", "#metrics"].forEach((s) => { $(s).hidden = true; });
  ["#relay-send", "#relay-devices", "#relay-metrics"].forEach((s) => { $(s).hidden = false; });
  const options = o.apps.map((a) => `<option value="${esc(a.name)}">${esc(a.name)}</option>`).join("");
  $("#r-app").innerHTML = options; $("#rd-app").innerHTML = options;
  $("#r-body").value = JSON.stringify({ apns: { payload: { aps: { alert: { title: "Hello", body: "from the relay's console" } } } } }, null, 2);
  relayAppChanged();
}
function relayApp() { return relay.apps.find((a) => a.name === $("#r-app").value) || relay.apps[0]; }
function relayAppChanged() {
  const a = relayApp();
  if (!a) { $("#r-host").textContent = "relay.json has no apps"; $("#r-send").disabled = true; return; }
  const where = (t) => t === "emulator" ? "pushlab's built-in emulator" : `<b class="real">${t === "apple" ? "Apple's APNs" : "Google's FCM"} — real devices get it</b>`;
  const parts = [];
  if (a.apnsTarget) parts.push(`APNs topic <code>${esc(a.apnsTopic)}</code> (${esc(a.apnsEnvironment)}) → ${where(a.apnsTarget)}`);
  if (a.fcmTarget) parts.push(`FCM project <code>${esc(a.fcmProject || "from the service account")}</code> → ${where(a.fcmTarget)}`);
  $("#r-host").innerHTML = parts.join("<br>");
  showRelayRequest([]);
}
function relayTargets() {
  const kind = $("#r-kind").value;
  return $("#r-targets").value.split("\n").map((l) => l.trim()).filter((l) => l).map((v) => ({ [kind]: v }));
}
// The request body without its targets, with the lines an error or finding points at flagged.
function showRelayRequest(findings) {
  $("#r-request").innerHTML = renderJSON($("#r-body").value, findings);
}
$("#r-app").addEventListener("change", relayAppChanged);
$("#r-body").addEventListener("input", () => showRelayRequest([]));
$("#relay-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const out = $("#r-answer"), app = $("#r-app").value;
  let body;
  try { body = JSON.parse($("#r-body").value); } catch (err) {
    out.innerHTML = `<p class="bad" id="r-result">the payload JSON does not parse: ${esc(err.message)}</p>`; return;
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) { out.innerHTML = `<p class="bad" id="r-result">the payload JSON must be an object with "apns" and/or "fcm"</p>`; return; }
  body.targets = relayTargets();
  out.innerHTML = `<p class="muted">queueing…</p>`;
  const res = await fetch("/console/api/relay/apps/" + encodeURIComponent(app) + "/pushes", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const a = await res.json().catch(() => ({}));
  if (res.status === 202) {
    const warnings = a.warnings || [];
    out.innerHTML = `<p class="ok" id="r-result">queued ${a.targets} target${a.targets === 1 ? "" : "s"} · push <code id="r-push-id">${esc(a.id)}</code></p>` +
      `<p><a href="#log" id="r-show">show its results in the log</a></p>` + (warnings.length ? findingList(warnings) : "");
    $("#r-show").onclick = () => { $("#search").value = a.id; filterChanged(); };
    showRelayRequest([]);
    return;
  }
  const findings = (a.findings || []).map((f) => ({ ...f, pointer: bodyPointer(a.field, f.pointer) }));
  const flagged = a.field && a.field.startsWith("/") ? [{ pointer: a.field, severity: "error", rule: a.error, message: a.message, fix: a.fix }, ...findings] : findings;
  out.innerHTML = `<div class="bad" id="r-result">${res.status} ${esc(a.error || res.statusText)} <code id="r-field">${esc(a.field || "")}</code>: ${esc(a.message || "")}<br><span class="muted">fix: ${esc(a.fix || "")}</span></div>` +
    (findings.length ? findingList(findings) : "");
  showRelayRequest(flagged);
});
// A finding's pointer is inside the APNs payload (field /apns/payload) or from {"message": …}
// (field /fcm/message): as a pointer into the request body.
function bodyPointer(field, p) {
  if (p == null || !field || !field.startsWith("/")) return p;
  if (field.endsWith("/message") && (p === "/message" || p.startsWith("/message/"))) return field.slice(0, -"/message".length) + p;
  return field + p;
}
function ago(ms) { const s = Math.max(0, Math.round((Date.now() - ms) / 1000)); return s < 60 ? s + " s ago" : s < 3600 ? Math.round(s / 60) + " min ago" : new Date(ms).toLocaleString(); }
async function loadRelayDevices() {
  const app = $("#rd-app").value || (relay.apps[0] && relay.apps[0].name);
  if (!app) return;
  const d = await api("/console/api/relay/devices?app=" + encodeURIComponent(app));
  $("#rd-note").textContent = `${d.tokens.length} target${d.tokens.length === 1 ? "" : "s"} in the newest ${d.deliveriesRead.toLocaleString()} results · ${d.invalidTokens.length} invalid`;
  $("#rd-tokens").innerHTML = `<tr><th>token</th><th>kind</th><th>last result</th><th>id</th><th>attempts</th><th>when</th><th>sent / results</th></tr>` +
    (d.tokens.length ? d.tokens.map((t) => `<tr class="rd-token"><td class="mono">${esc(t.token)}</td><td>${esc(t.kind)}</td>` +
      `<td>${t.status === "sent" ? `<span class="ok">sent ${t.httpStatus ?? ""}</span>` : `<span class="bad">failed ${t.httpStatus ?? ""} ${esc(t.reason)}</span>`}</td>` +
      `<td class="mono">${esc(t.providerID || t.pushID)}</td><td>${t.attempts}</td><td>${ago(t.finishedAt)}</td><td>${t.sent} / ${t.results}</td></tr>`).join("")
      : `<tr><td colspan="7" class="muted">no final results yet for ${esc(app)}</td></tr>`);
  $("#rd-invalid").innerHTML = `<tr><th>token</th><th>kind</th><th>reason</th><th>push</th><th>reported</th></tr>` +
    (d.invalidTokens.length ? d.invalidTokens.map((t) => `<tr class="rd-invalid"><td class="mono">${esc(t.token)}</td><td>${esc(t.kind)}</td><td class="bad">${esc(t.reason)}</td>` +
      `<td class="mono">${esc(t.pushID)}</td><td>${ago(t.reportedAt)}</td></tr>`).join("") : `<tr><td colspan="5" class="muted">no invalid tokens</td></tr>`);
}
$("#rd-app").addEventListener("change", () => loadRelayDevices().catch(() => {}));
$("#rd-refresh").addEventListener("click", () => loadRelayDevices().catch(() => {}));
// Rates are the counters' change between two reads (every 2 s while the tab is open).
async function loadRelayMetrics() {
  const m = await api("/console/api/relay/metrics"), prev = relay.metrics;
  relay.metrics = m;
  const seconds = prev ? Math.max(0.001, (m.at - prev.at) / 1000) : 0;
  const rate = (app, k) => { const p = prev && prev.apps.find((x) => x.app === app.app); return p && seconds ? ((app[k] - p[k]) / seconds).toFixed(1) + "/s" : "–"; };
  const q = m.queue;
  let html = `<div class="cards">` + [["waiting", q ? q.waiting : "?"], ["claimed", q ? q.claimed : "?"], ["finished", q ? q.finished : "?"],
    ["capacity", m.capacity], ["in flight", `${m.inFlight} / ${m.concurrency}`], ["pushes accepted", m.pushesAccepted], ["pushes finished", m.pushesFinished], ["duplicate results", m.duplicates]]
    .map(([k, v]) => `<div class="card" data-metric="${esc(k)}"><span class="muted">${esc(k)}</span><b>${esc(typeof v === "number" ? v.toLocaleString("en-US") : v)}</b></div>`).join("") + `</div>`;
  if (m.queueError) html += `<p class="bad">queue: ${esc(m.queueError)}</p>`;
  html += `<div class="panel"><h2>Per app <span class="muted">the counters /metrics exports; rates over the last ${seconds ? seconds.toFixed(1) + " s" : "read (refresh to see them)"}</span></h2><table class="list" id="rm-apps">` +
    `<tr><th>app</th><th>accepted</th><th>sent</th><th>failed</th><th>retried</th><th>sent rate</th><th>failed rate</th><th>accepted rate</th><th>failures by reason</th></tr>` +
    m.apps.map((a) => `<tr data-app="${esc(a.app)}"><td>${esc(a.app)}</td><td class="rm-accepted">${a.accepted}</td><td class="rm-sent">${a.sent}</td><td class="rm-failed">${a.failed}</td><td class="rm-retried">${a.retried}</td>` +
      `<td>${rate(a, "sent")}</td><td>${rate(a, "failed")}</td><td>${rate(a, "accepted")}</td>` +
      `<td>${Object.entries(a.failedByReason).map(([r, n]) => `${esc(r)} ${n}`).join(", ") || "–"}</td></tr>`).join("") + `</table></div>`;
  html += `<div class="charts">` + barChart("Sent and failed targets by app", m.apps.flatMap((a) => [
    { label: a.app + " sent", value: a.sent, color: "#1a7f43" }, { label: a.app + " failed", value: a.failed, color: "#c0392b" }])) + `</div>`;
  $("#relay-metrics").innerHTML = html;
  $("#m-note").textContent = "the relay's counters, read " + new Date(m.at).toLocaleTimeString([], { hour12: false });
  clearTimeout(relay.timer);
  if ($("#tab-metrics").classList.contains("active")) relay.timer = setTimeout(() => loadRelayMetrics().catch(() => {}), 2000);
}

// ---- start ----
(async function start() {
  await loadPage(true);
  // When the first page was on screen, in ms since navigation began (the browser test reads it).
  document.body.dataset.firstPageMs = String(Math.round(performance.now()));
  connect();
  const status = await api("/console/api/status").catch(() => ({}));
  if (status.relay) await relayMode().catch(() => {});
  else loadTargets().catch(() => {});
  $("#s-payload").value = JSON.stringify(buildPayload(), null, 2);
  validateNow();
  showTab(location.hash.slice(1) || "log");
})();
