// The station's little JavaScript: check-in upload with progress, card-name autocomplete,
// audits started as jobs and watched to their files.
"use strict";
const CSRF = document.querySelector('meta[name="csrf"]')?.content || "";

function autocomplete(input, url, label, onPick) {
  const box = document.createElement("ul");
  box.className = "hide";
  input.parentNode.appendChild(box);
  let timer = null;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const q = input.value.trim();
      if (!q) { box.className = "hide"; return; }
      const res = await fetch(url + encodeURIComponent(q), {credentials: "same-origin"});
      if (!res.ok) return;
      const items = await res.json();
      box.replaceChildren(...items.slice(0, 8).map(item => {
        const li = document.createElement("li");
        li.textContent = label(item);  // textContent: names are never HTML
        li.addEventListener("click", () => { box.className = "hide"; onPick(item); });
        return li;
      }));
      box.className = items.length ? "" : "hide";
    }, 180);
  });
}
const cardLabel = c => `${c.name} [${c.card_id}]`;
const playerLabel = p => `${p.name || ""} · ${p.player}${p.table ? " · 테이블 " + p.table : ""}`;

// Card autocomplete fields: <input data-card-for="hidden-id-field" data-radio="radio-id">
document.querySelectorAll("input[data-card-for]").forEach(input => {
  const hidden = document.getElementById(input.dataset.cardFor);
  // Typing again forgets an earlier pick: the card sent is always the one the text names.
  input.addEventListener("input", () => { hidden.value = ""; });
  autocomplete(input, "/api/cards?q=", cardLabel, card => {
    input.value = card.name; hidden.value = card.card_id;
    const radio = document.getElementById(input.dataset.radio);
    if (radio) radio.checked = true;
  });
});

// Player pickers that jump to a page: <input data-player-go="/deckcheck/">
document.querySelectorAll("input[data-player-go]").forEach(input => {
  autocomplete(input, "/api/players?q=", playerLabel, p => {
    location.href = input.dataset.playerGo + p.player;
  });
});

// Check-in: pick a player (optional), upload, poll the job, open the result.
const form = document.getElementById("checkin-form");
if (form) {
  const who = document.getElementById("player-search");
  const pid = document.getElementById("player-id");
  const picked = document.getElementById("picked");
  if (who) autocomplete(who, "/api/players?q=", playerLabel, p => {
    pid.value = p.player; who.value = "";
    picked.textContent = `${p.name || ""} · ${p.player}`;
    picked.parentNode.classList.remove("hide");
  });
  const status = document.getElementById("status");
  const bar = document.getElementById("bar");
  const say = (text, cls) => { status.textContent = text; status.className = cls || "msg"; };
  const send = async file => {
    if (!file) return;
    const data = new FormData();
    data.append("file", file, file.name || "photo.jpg");
    data.append("player", pid.value);
    bar.classList.remove("hide");
    say("올리는 중…");
    let res;
    try {
      res = await fetch("/api/registrations", {method: "POST", body: data,
        headers: {"X-CSRF-Token": CSRF}, credentials: "same-origin"});
    } catch (e) { bar.classList.add("hide"); say("연결이 끊겼습니다: 다시 시도하세요", "err"); return; }
    const body = await res.json().catch(() => ({error: "응답을 읽을 수 없습니다"}));
    if (res.status !== 202) { bar.classList.add("hide"); say(body.error || "올리지 못했습니다", "err"); return; }
    say("읽는 중… (사진은 몇 초 걸립니다)");
    const started = Date.now();
    for (;;) {
      await new Promise(r => setTimeout(r, 700));
      const j = await (await fetch("/api/jobs/" + body.job, {credentials: "same-origin"})).json();
      if (j.state === "done") {
        say(`완료 (${((Date.now() - started) / 1000).toFixed(1)}초)`);
        location.href = `/players/${j.result.player}/v/${j.result.version}`;
        return;
      }
      if (j.state === "failed") { bar.classList.add("hide"); say(j.error || "읽지 못했습니다", "err"); return; }
      if (j.state === "needs-decision") { bar.classList.add("hide"); askDecision(j); return; }
      say((j.state === "queued" ? "순서를 기다리는 중…" : "읽는 중…") +
          ` ${Math.round((Date.now() - started) / 1000)}초`);
    }
  };
  // A guard held the registration (same original for another player, an implausible new
  // version): nothing is stored until the judge picks one of two buttons.
  const askDecision = j => {
    const box = document.getElementById("decision");
    document.getElementById("decision-detail").textContent = j.detail || "";
    box.classList.remove("hide");
    say("심판의 결정이 필요합니다", "err");
    box.querySelectorAll("button[data-choice]").forEach(btn => {
      btn.onclick = async () => {
        box.querySelectorAll("button").forEach(b => b.disabled = true);
        const res = await fetch(`/api/jobs/${j.job}/decide`, {method: "POST",
          headers: {"X-CSRF-Token": CSRF, "Content-Type": "application/json"},
          credentials: "same-origin", body: JSON.stringify({choice: btn.dataset.choice})});
        const d = await res.json().catch(() => ({error: "응답을 읽을 수 없습니다"}));
        box.classList.add("hide");
        box.querySelectorAll("button").forEach(b => b.disabled = false);
        if (!res.ok) { say(d.error || "결정을 기록하지 못했습니다", "err"); return; }
        if (d.state === "done") { location.href = `/players/${d.result.player}/v/${d.result.version}`; return; }
        if (d.state === "needs-decision") { askDecision(d); return; }
        say(d.error || "저장하지 않았습니다", "msg");
      };
    });
  };
  form.querySelectorAll("input[type=file]").forEach(inp =>
    inp.addEventListener("change", () => send(inp.files[0])));
  form.addEventListener("submit", e => e.preventDefault());
}

// Review: nothing is pre-selected on a flagged line; 결정 확정 is enabled only once every item
// has an answer, and says how many it confirms.
const review = document.getElementById("review-form");
if (review) {
  const button = document.getElementById("confirm-review");
  const left = document.getElementById("review-left");
  // Items still open (a line decided before is not asked again; it can be re-chosen).
  const groups = [...new Set([...review.querySelectorAll(
    ".flag:not(.done) input[type=radio][name^='act-']")].map(r => r.name))];
  const update = () => {
    const open = groups.filter(g => !review.querySelector(`input[name='${g}']:checked`)).length;
    button.disabled = open > 0;
    button.textContent = open > 0 ? `결정 확정 (남은 항목 ${open}개)` : `결정 ${groups.length}개 확정`;
    if (left) left.classList.toggle("hide", open === 0);
  };
  review.addEventListener("change", update);
  update();
}

// Audits: a button starts a job (POST /api/audits); its box shows 「감사 중… 12/30」, then the files.
const AUDIT_STATE = {queued: "대기 중 (앞의 감사가 끝나면 시작합니다)", done: "완료"};
function showAudit(box, job) {
  const state = box.querySelector(".audit-state");
  const p = job.progress || {done: 0, total: 0};
  state.textContent = job.state === "running" ? `감사 중… ${p.done}/${p.total}`
    : job.state === "failed" ? `멈춤: ${job.error || ""}`
    : job.state === "done" ? `${AUDIT_STATE.done} (${p.total}건)` : AUDIT_STATE.queued;
  box.dataset.state = job.state;
  if (job.state !== "queued" && job.state !== "running") box.querySelector(".progress")?.remove();
  if (job.state !== "done") return;
  const list = box.querySelector(".audit-files");
  list.replaceChildren(...job.result.files.map(f => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.className = "btn sec"; a.href = f.url; a.textContent = f.label || f.name;
    const size = document.createElement("span");
    size.className = "small"; size.textContent = ` ${(f.size / 1024).toFixed(1)} KB`;
    li.append(a, size);
    return li;
  }));
}
async function watchAudit(box) {
  for (;;) {
    let job = null;
    try {
      const res = await fetch(`/api/jobs/${box.dataset.auditJob}`, {credentials: "same-origin"});
      if (res.ok) job = await res.json();
    } catch (e) { /* the server may be restarting: ask again */ }
    if (job) {
      showAudit(box, job);
      if (job.state !== "queued" && job.state !== "running") return;
    }
    await new Promise(r => setTimeout(r, 1000));
  }
}
function auditBox(id) {
  const box = document.createElement("div");
  box.className = "card audit-job";
  box.dataset.auditJob = id;
  const state = document.createElement("p");
  state.className = "audit-state"; state.setAttribute("aria-live", "polite");
  state.textContent = AUDIT_STATE.queued;
  const bar = document.createElement("div");
  bar.className = "progress"; bar.append(document.createElement("i"));
  const list = document.createElement("ul");
  list.className = "audit-files";
  box.append(state, bar, list);
  return box;
}
document.querySelectorAll("[data-audit]").forEach(button => {
  button.addEventListener("click", async ev => {
    ev.preventDefault();
    const out = document.getElementById("audit-status");
    const fail = text => {
      const p = document.createElement("p"); p.className = "err"; p.textContent = text;
      out.prepend(p);
    };
    let res;
    try {
      res = await fetch("/api/audits", {method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": CSRF},
        body: JSON.stringify({formats: [button.dataset.audit]})});
    } catch (e) { fail("연결이 끊겼습니다: 다시 시도하세요"); return; }
    const body = await res.json().catch(() => ({error: "응답을 읽을 수 없습니다"}));
    if (res.status !== 202) { fail(body.error || "감사를 시작하지 못했습니다"); return; }
    const box = auditBox(body.job);
    out.prepend(box);
    watchAudit(box);
  });
});
document.querySelectorAll("[data-audit-job]").forEach(box => {
  if (box.dataset.state === "queued" || box.dataset.state === "running") watchAudit(box);
});
