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
// Texts of the message table (web.*) a page hands over: `{name}` placeholders filled here.
// A new upload's idempotency key (a sheet sent again after a dropped connection keeps its own).
const newUploadKey = () => (crypto.randomUUID ? crypto.randomUUID()
  : Date.now().toString(36) + Math.random().toString(36).slice(2)).replace(/[^A-Za-z0-9_-]/g, "");
// A sheet sent to be read; with no player, whose sheet it is is asked when its read is done.
const postSheet = (file, key, player) => {
  const data = new FormData();
  data.append("file", file, file.name || "photo.jpg");
  data.append("upload_key", key);
  data.append("player", player);
  if (!player) data.append("ask_player", "1");
  return fetch("/api/registrations", {method: "POST", body: data,
    headers: {"X-CSRF-Token": CSRF}, credentials: "same-origin"});
};
const fill = (text, params) => (text || "").replace(/\{(\w+)\}/g, (_, k) => params[k] ?? "");
const cardLabel = c => `${c.name} [${c.card_id}]`;
const playerLabel = p => `${p.name || ""} · ${p.player}${p.table ? " · 테이블 " + p.table : ""}`;

// Card autocomplete fields: <input data-card-for="hidden-id-field" data-radio="radio-id">
const bindCard = input => {
  const hidden = document.getElementById(input.dataset.cardFor);
  // Typing again forgets an earlier pick: the card sent is always the one the text names.
  // A review form's hidden card field is disabled (not sent) until a card is picked.
  input.addEventListener("input", () => { hidden.value = ""; if (hidden.form?.id === "review-form") hidden.disabled = true; hidden.dispatchEvent(new Event("change", {bubbles: true})); });
  autocomplete(input, "/api/cards?q=", cardLabel, card => {
    input.value = card.name; hidden.value = card.card_id; hidden.disabled = false;
    hidden.dispatchEvent(new Event("change", {bubbles: true}));
    const radio = document.getElementById(input.dataset.radio);
    if (radio) radio.checked = true;
  });
};
document.querySelectorAll("input[data-card-for]").forEach(bindCard);

// Deck check: any number of unlisted cards (「카드 추가」); 비교하기 waits until every row is
// a card picked from the suggestions with a section and a count (a card left out: false 일치).
const unlisted = document.getElementById("unlisted-rows");
if (unlisted) {
  const preview = document.getElementById("preview");
  const left = document.getElementById("unlisted-left");
  const rows = () => [...unlisted.querySelectorAll(".unlisted-row")];
  const field = (row, name) => row.querySelector(`[name^='${name}']`);
  const update = () => {
    const open = rows().filter(row => {
      const text = field(row, "extra_card_text").value.trim();
      const card = row.querySelector("input[type=hidden]").value;
      if (!text && !card) return false;  // an empty row is no card
      const count = field(row, "extra_count").value;
      return !card || !field(row, "extra_section").value || !(count >= 1 && count <= 60);
    }).length;
    preview.disabled = open > 0;
    left.textContent = open ? fill(unlisted.dataset.left, {n: open}) : "";
    left.classList.toggle("hide", open === 0);
  };
  document.getElementById("add-unlisted").addEventListener("click", () => {
    const all = rows();
    if (all.length >= Number(unlisted.dataset.max || 20)) return;
    const n = all.length + 1, sfx = "-" + n;
    const row = all[0].cloneNode(true);
    row.dataset.unlisted = n;
    row.querySelectorAll("ul").forEach(ul => ul.remove());  // the first row's suggestion box
    row.querySelectorAll("[id]").forEach(el => { el.id = el.id.replace(/(-\d+)?$/, sfx); });
    row.querySelectorAll("[for]").forEach(el => { el.htmlFor = el.htmlFor.replace(/(-\d+)?$/, sfx); });
    row.querySelectorAll("[name]").forEach(el => { el.name = el.name.replace(/(-\d+)?$/, sfx); el.value = ""; });
    row.querySelector("label").textContent = fill(unlisted.dataset.card, {n});
    const text = row.querySelector("input[data-card-for]");
    text.dataset.cardFor = "extra-card" + sfx;
    unlisted.appendChild(row);
    bindCard(text);
    text.focus();
    update();
  });
  unlisted.addEventListener("input", update);
  unlisted.addEventListener("change", update);
  update();
}

// Deck check: what gets recorded is the comparison shown. Any edit after it (a count, the
// 시점, the round) takes 이대로 기록 away until the judge compares again (the server refuses a
// stale one too).
const dcForm = document.getElementById("deckcheck-form");
const dcConfirm = document.getElementById("confirm");
if (dcForm && dcConfirm) {
  const stale = () => {
    dcConfirm.disabled = true;
    dcConfirm.classList.add("hide");
    document.getElementById("stale")?.classList.remove("hide");
    document.getElementById("confirm-note")?.classList.add("hide");
    document.getElementById("deckcheck-result")?.classList.add("stale");  // not what is entered now
  };
  dcForm.addEventListener("input", stale);
  dcForm.addEventListener("change", stale);
}

// Player pickers that jump to a page: <input data-player-go="/deckcheck/">
document.querySelectorAll("input[data-player-go]").forEach(input => {
  autocomplete(input, "/api/players?q=", playerLabel, p => {
    location.href = input.dataset.playerGo + p.player;
  });
});

// Check-in: pick a player (optional), upload, poll the job, open the result.
const form = document.getElementById("checkin-form");
if (form) {
  const T = JSON.parse(form.dataset.texts || "{}");
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
  // One key per chosen file: sent again after a dropped connection, it is the same upload
  // (one job, one version), never a second one.
  const keys = new WeakMap();
  const keyOf = file => {
    if (!keys.has(file)) keys.set(file, newUploadKey());
    return keys.get(file);
  };
  const send = async file => {
    if (!file) return;
    document.getElementById("send-again")?.remove();
    bar.classList.remove("hide");
    say("올리는 중…");
    let res;
    try {
      // No player typed: the desk flow. The read waits for the judge's one tap on whose sheet it is.
      res = await postSheet(file, keyOf(file), pid.value);
    } catch (e) {
      bar.classList.add("hide"); say("연결이 끊겼습니다: 다시 보내세요 (같은 시트는 한 번만 등록됩니다)", "err");
      const again = document.createElement("button");
      again.type = "button"; again.className = "sec"; again.id = "send-again";
      again.textContent = "다시 보내기";
      again.onclick = () => { again.remove(); send(file); };  // the same file: the same key
      status.after(again);
      return;
    }
    const body = await res.json().catch(() => ({error: "응답을 읽을 수 없습니다"}));
    if (res.status !== 202) { bar.classList.add("hide"); say(body.error || "올리지 못했습니다", "err"); return; }
    watch(body.job);
  };
  // A PDF's text reading while its pages are verified (issue 33): the lines and the player the
  // text gives, under 「화면의 그림과 대조 중…」 — no verdict, no button. It goes entirely when
  // the job ends: the verified read (its page, its refusal, its question) replaces it.
  const first = document.getElementById("first-read");
  let firstShown = "";
  const showFirstRead = (p, seconds) => {
    document.getElementById("first-read-time").textContent = ` ${seconds}초`;
    const key = JSON.stringify(p);
    if (key === firstShown) return;
    firstShown = key;
    const L = T.labels || {};
    const pl = p.player || {};
    document.getElementById("first-read-player").textContent =
      fill(T.read, {name: pl.name || T.no_name, kid: pl.konami_id || T.no_id});
    const groups = [];
    for (const sec of p.sections || []) {
      const cols = sec.section === "main" ? ["monster", "spell", "trap", null] : [undefined];
      for (const col of cols) {
        const lines = (sec.lines || []).filter(l => col === undefined ||
          (col === null ? !["monster", "spell", "trap"].includes(l.column) : l.column === col));
        if (col !== undefined && !lines.length) continue;
        groups.push({label: L[col] || L[sec.section] || sec.section, lines});
      }
    }
    first.querySelector("#first-read-lines").replaceChildren(...groups.map(g => {
      const table = document.createElement("table");
      const cap = table.createCaption();
      cap.textContent = fill(T.count, {label: g.label, n: g.lines.reduce((n, l) => n + (l.count || 0), 0)});
      for (const l of g.lines) {
        const tr = table.insertRow();
        const c = tr.insertCell(); c.className = "c"; c.textContent = l.count;
        const n = tr.insertCell(); n.textContent = l.name;  // text, never HTML
        if (l.unsure) {
          tr.className = "flagged";
          const w = document.createElement("span");
          w.className = "small"; w.textContent = " ⚠ " + T.line_unsure;
          n.append(w);
        }
      }
      return table;
    }));
    first.classList.remove("hide");
    status.classList.add("hide");
  };
  const dropFirstRead = () => {
    first.classList.add("hide");
    first.querySelector("#first-read-lines").replaceChildren();
    document.getElementById("first-read-player").textContent = "";
    firstShown = "";
    status.classList.remove("hide");
  };
  // Poll a reading job to its end: the result page, its refusal, or the decision it waits for.
  const watch = async jobId => {
    bar.classList.remove("hide");
    say("읽는 중… (사진은 몇 초 걸립니다)");
    const started = Date.now();
    let state = "sent";  // the first answer is asked for soon: a reader may have begun at once
    for (;;) {
      // A running read is asked after more often: a PDF's text reading shows within 0.3 s.
      await new Promise(r => setTimeout(r, state === "queued" ? 700 : 300));
      let j;
      try {
        const res = await fetch("/api/jobs/" + jobId, {credentials: "same-origin"});
        if (!res.ok) continue;
        j = await res.json();
      } catch (e) { continue; }  // the server may be restarting: ask again
      state = j.state;
      if (j.state !== "running") dropFirstRead();
      if (j.state === "done") {
        say(`완료 (${((Date.now() - started) / 1000).toFixed(1)}초)`);
        location.href = `/players/${j.result.player}/v/${j.result.version}`;
        return;
      }
      if (j.state === "failed") {
        bar.classList.add("hide"); whose.classList.add("hide"); earlyShown = "";
        say(j.error || "읽지 못했습니다", "err"); return;
      }
      if (j.state === "needs-decision") {
        bar.classList.add("hide");
        // The read ended with no tap: the same buttons stay as they are (a confirm box being
        // typed in is not closed under the judge's fingers); only what the page says changes.
        const same = j.decision === "player" && !j.again && earlyShown
          && earlyShown === JSON.stringify([j.match, j.candidates, j.sheet]);
        earlyShown = "";
        if (same) { whose.classList.remove("reading"); say(T.whose, "msg"); } else settle(j);
        return;
      }
      const seconds = Math.round((Date.now() - started) / 1000);
      // A photo's header is read before its rows: whose sheet it is is asked now, and the tap is
      // kept by the station and carried out when the read ends (the list page comes then).
      if (j.tapped || tappedHere) { showTapped(j.tapped || tappedHere, seconds); continue; }
      if (j.decision === "player") {
        const key = JSON.stringify([j.match, j.candidates, j.sheet]);
        if (key !== earlyShown) { earlyShown = key; askPlayer(j, true); }
        say(`${T.whose_early} · ${seconds}초`, "msg");
        continue;
      }
      if (j.state === "running" && j.preview && j.preview.sections) { showFirstRead(j.preview, seconds); continue; }
      say((j.state === "queued" ? "순서를 기다리는 중…" : "읽는 중…") + ` ${seconds}초`);
    }
  };
  const settle = j => (j.decision === "player" ? askPlayer : askDecision)(j);
  let earlyShown = "", tappedHere = null;  // (a poll sent before the tap may answer after it)
  // The tap made while the rows are read: said, with the read still going on under it.
  const showTapped = (t, seconds) => {
    whose.classList.add("hide");
    say((t.choice === "discard" ? T.tap_discard : fill(T.tap_held, {name: t.name || T.no_name, kid: t.player}))
      + (seconds === null ? "" : ` · 읽는 중… ${seconds}초`), "msg");
  };
  // The desk flow: the sheet's Konami ID found on the roster is one button; otherwise roster
  // candidates (its name, an ID a digit off) and a search box. Nothing is picked for the judge.
  const whose = document.getElementById("whose");
  const confirmBox = document.getElementById("whose-confirm");
  const askPlayer = (j, reading) => {
    const sheet = j.sheet || {};
    document.getElementById("whose-sheet").textContent =
      fill(T.read, {name: sheet.name || T.no_name, kid: sheet.konami_id || T.no_id}) +
      (sheet.konami_id && !sheet.id_sure ? " " + T.unsure : "");
    const buttons = () => whose.querySelectorAll("button");
    const store = async (body) => {
      buttons().forEach(b => b.disabled = true);
      const res = await fetch(`/api/jobs/${j.job}/decide`, {method: "POST",
        headers: {"X-CSRF-Token": CSRF, "Content-Type": "application/json"},
        credentials: "same-origin", body: JSON.stringify(body)});
      const d = await res.json().catch(() => ({error: "응답을 읽을 수 없습니다"}));
      buttons().forEach(b => b.disabled = false);
      if (!res.ok) { say(d.error || "결정을 기록하지 못했습니다", "err"); return; }
      whose.classList.add("hide");
      if (d.state === "done") { location.href = `/players/${d.result.player}/v/${d.result.version}`; return; }
      if (d.state === "needs-decision") { settle(d); return; }
      // Tapped while the rows are read: kept; the watch goes on to the read's end.
      if (d.tapped) { tappedHere = d.tapped; showTapped(d.tapped, null); return; }
      say(d.error || "저장하지 않았습니다", "msg");
    };
    // What tells two players apart: the table and the ID, always beside the name.
    const label = p => fill(T.button, {name: p.name || T.no_name, kid: p.player}) +
      (p.table ? " · " + fill(T.table, {table: p.table}) : "") +
      (p.same_name ? " — " + fill(T.same_name, {n: p.same_name + 1}) : "");
    // A player other than the sheet's own ID: stored only once the judge types the player's
    // table or the last digits of their Konami ID (asked of the player, not read off the sheet).
    const confirmFirst = p => {
      document.getElementById("whose-confirm-who").textContent =
        fill(T.confirm_who, {name: p.name || T.no_name, kid: p.player, table: p.table || "-"});
      const text = document.getElementById("whose-confirm-text");
      text.value = "";
      confirmBox.classList.remove("hide");
      text.focus();
      document.getElementById("whose-confirm-store").onclick = () =>
        store({choice: "store", player: p.player, confirm: text.value});
      document.getElementById("whose-confirm-back").onclick = () => confirmBox.classList.add("hide");
    };
    const button = (p, cls, direct) => {
      const b = document.createElement("button");
      b.type = "button"; b.className = cls; b.dataset.player = p.player;
      b.textContent = label(p);  // text, never HTML
      b.onclick = () => direct ? store({choice: "store", player: p.player}) : confirmFirst(p);
      return b;
    };
    const match = document.getElementById("whose-match");
    if (j.match) {
      const b = button(j.match, "btn big", true);
      b.textContent = fill(T.button, {name: j.match.name || T.no_name, kid: j.match.player});
      match.replaceWith(b);
      b.id = "whose-match";
    } else match.classList.add("hide");
    document.getElementById("whose-none").classList.toggle("hide", !!j.match);
    const cands = document.getElementById("whose-cands");
    cands.replaceChildren(...(j.candidates || []).map(p => button(p, "btn sec", false)));
    // The sheet's own player is not on the roster: added from its ID and name, one tap.
    const add = document.getElementById("whose-add");
    add.classList.toggle("hide", !sheet.addable);
    if (sheet.addable) {
      add.textContent = fill(T.add, {name: sheet.name || T.no_name, kid: sheet.konami_id});
      add.onclick = () => sheet.id_sure ? store({choice: "store", add: true})
        : confirmFirst({player: sheet.konami_id, name: sheet.name, table: null, add: true});
      if (!sheet.id_sure) {
        add.onclick = () => {
          confirmFirst({player: sheet.konami_id, name: sheet.name, table: null});
          document.getElementById("whose-confirm-store").onclick = () => store(
            {choice: "store", add: true, confirm: document.getElementById("whose-confirm-text").value});
        };
      }
    }
    const search = document.getElementById("whose-search");
    if (!search.dataset.ready) {
      search.dataset.ready = "1";
      autocomplete(search, "/api/players?q=", playerLabel, p => {
        search.value = "";
        cands.prepend(button(p, "btn", false));
      });
    }
    confirmBox.classList.add("hide");
    document.getElementById("whose-discard").onclick = () => store({choice: "discard"});
    whose.classList.remove("hide");
    whose.classList.toggle("reading", !!reading);
    if (!reading) say(j.again ? j.detail : T.whose, j.again ? "err" : "msg");
  };
  // A guard held the registration (same original for another player, an implausible new
  // version): nothing is stored until the judge picks one of two buttons.
  const askDecision = j => {
    const box = document.getElementById("decision");
    document.getElementById("decision-detail").textContent = j.detail || "";
    box.classList.remove("hide");
    say(T.decision_needed, "err");
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
        if (d.state === "needs-decision") { settle(d); return; }
        say(d.error || "저장하지 않았습니다", "msg");
      };
    });
  };
  // Sheets read earlier that still wait for the tap on whose sheet they are (the page was left).
  document.querySelectorAll("button[data-held]").forEach(btn => btn.addEventListener("click", async () => {
    const res = await fetch("/api/jobs/" + btn.dataset.held, {credentials: "same-origin"});
    const j = res.ok ? await res.json() : null;
    btn.remove();
    if (j && j.state === "needs-decision") settle(j);
  }));
  // A Konami ID barcode/QR (the player's app or card) fills the player: only where the
  // browser has a BarcodeDetector (the button stays hidden elsewhere).
  const scan = document.getElementById("scan-id");
  if (scan && "BarcodeDetector" in window && navigator.mediaDevices?.getUserMedia) {
    scan.classList.remove("hide");
    const video = document.getElementById("scan-video");
    scan.addEventListener("click", async () => {
      let stream;
      try {
        stream = await navigator.mediaDevices.getUserMedia({video: {facingMode: "environment"}});
      } catch (e) { say(T.no_camera, "err"); return; }
      const detector = new BarcodeDetector();
      video.srcObject = stream; video.classList.remove("hide"); await video.play();
      say(T.aim);
      const stop = () => { stream.getTracks().forEach(t => t.stop()); video.classList.add("hide"); };
      const started = Date.now();
      for (;;) {
        if (Date.now() - started > 30000) { stop(); say(T.scan_failed, "err"); return; }
        const codes = await detector.detect(video).catch(() => []);
        const digits = codes.map(c => (c.rawValue.replace(/[-\s]/g, "").match(/\d{10}/) || [""])[0]).find(Boolean);
        if (digits) {
          stop();
          const kid = digits;
          pid.value = kid;
          const res = await fetch("/api/players?q=" + kid, {credentials: "same-origin"});
          const found = res.ok ? (await res.json()).find(p => p.player === kid) : null;
          picked.textContent = found ? `${found.name || ""} · ${kid}` : fill(T.not_on_roster, {kid});
          picked.parentNode.classList.remove("hide");
          say(T.scan_read);
          return;
        }
        await new Promise(r => setTimeout(r, 250));
      }
    });
  }
  form.querySelectorAll("input[type=file]").forEach(inp =>
    inp.addEventListener("change", () => send(inp.files[0])));
  if (form.dataset.watch) watch(form.dataset.watch);  // a kept original read again for its owner
  form.addEventListener("submit", e => e.preventDefault());
}

// Review at a glance (issue 35): each flagged line is a row — its crop, the card and count read.
// A ticked row is confirmed as read by the one button; a doubtful row (⚠, listed first) starts
// unticked; 「다름」 opens the candidates, the card search, 「이 줄은 덱에 없음」 and the count,
// and an answer there unticks the row. Nothing is chosen for a line the judge did not open.
const review = document.getElementById("review-form");
if (review && document.getElementById("confirm-review")) {
  const button = document.getElementById("confirm-review");
  const left = document.getElementById("review-left");
  const rows = [...review.querySelectorAll("#glance li.gl")];
  const totalQs = [...review.querySelectorAll(".gtotal[data-total-q]")];
  const chosen = el => !!el.querySelector("input[name^='fix-']:checked, input[name^='count-']:checked");
  const flagGroups = [...new Set([...document.querySelectorAll(
    "input[type=radio][name^='act-flag-']")].map(r => r.name))];
  rows.forEach(li => {
    const tick = li.querySelector("input[type=checkbox]");
    tick.addEventListener("change", () => {  // "as read" again: forget what was chosen
      if (tick.checked) li.querySelectorAll("input[name^='fix-'], input[name^='count-']")
        .forEach(r => { r.checked = false; });
    });
  });
  const update = () => {
    let kept = 0, changed = 0, open = 0, openFlags = 0;
    rows.forEach(li => {
      const tick = li.querySelector("input[type=checkbox]");
      const fixed = chosen(li);
      if (fixed) tick.checked = false;  // a line that differs is not "as read"
      li.classList.toggle("fixed", fixed);
      li.classList.toggle("ok", !fixed && tick.checked);
      if (fixed) changed++; else if (tick.checked) kept++; else open++;
    });
    // A printed total the pen edits explain holds for the lines as read: once a line of the
    // list is changed, it is not confirmed with them (it comes back as an item if still off).
    const edited = changed > 0;
    document.querySelectorAll(".gnote").forEach(note => note.classList.toggle("stale", edited));
    review.querySelectorAll("input.explained").forEach(i => { i.disabled = edited; });
    review.querySelectorAll("#decided .flag").forEach(el => { if (chosen(el)) changed++; });
    // A section's printed total against its lines as decided here: asked on this page when off.
    const sums = {};
    totalQs.forEach(q => { sums[q.dataset.totalQ] = Number(q.dataset.sum); });
    rows.forEach(li => {
      const sec = (li.dataset.line || "").split("-")[0];
      if (li.dataset.line && sec in sums) {
        const was = Number(li.dataset.count) || 0;
        const count = li.querySelector("input[name^='count-']:checked");
        if (li.querySelector("input[name^='fix-'][value='remove']:checked")) sums[sec] -= was;
        else if (count) sums[sec] += Number(count.value) - was;
      } else if (li.dataset.restore && li.dataset.section in sums
                 && li.querySelector("input[name^='fix-flag-'][value='restore']:checked")) {
        sums[li.dataset.section] += Number(li.dataset.restore);
      }
    });
    totalQs.forEach(q => {
      const s = q.dataset.totalQ, n = sums[s];
      const ask = n !== Number(q.dataset.printed) && (n !== Number(q.dataset.sum) || (edited && q.dataset.explained));
      q.classList.toggle("hide", !ask);
      q.querySelectorAll("input").forEach(i => { i.disabled = !ask; });
      q.querySelector(".gsum").textContent = n;
      q.querySelector("input[type=hidden]").value = n;
      if (ask) { if (q.querySelector("input[type=radio]:checked")) changed++; else openFlags++; }
    });
    flagGroups.forEach(g => {
      if (document.querySelector(`input[name='${g}']:checked`)) changed++; else openFlags++;
    });
    document.querySelectorAll(".enter-row").forEach(row => {
      const card = row.querySelector("input[type=hidden]");
      if (card && !card.disabled && card.value && row.querySelector("input[type=radio]:checked")) changed++;
    });
    button.disabled = kept + changed === 0;
    button.textContent = kept && changed ? `읽은 그대로 ${kept}줄 · 고친 ${changed}개 확정`
      : kept ? `이 ${kept}줄은 읽은 그대로 — 확정` : changed ? `결정 ${changed}개 확정`
      : "체크하거나 고른 것이 없습니다";
    const parts = [open ? `체크하지 않은 줄 ${open}개` : "", openFlags ? `답하지 않은 시트 항목 ${openFlags}개` : ""];
    if (left) left.textContent = open || openFlags
      ? `남음: ${parts.filter(Boolean).join(" · ")} — 확정해도 이것들은 확인 필요로 남습니다`
      : "모든 항목에 답했습니다";
  };
  document.addEventListener("change", e => { if (e.target.form === review) update(); });
  // A table the reader did not read: 「줄 추가」 adds another card + count row.
  document.querySelectorAll("details.enter").forEach(box => {
    let next = Number(box.dataset.next);
    box.querySelector(".add-entry").addEventListener("click", () => {
      const rowsBox = box.querySelector(".enter-rows");
      const last = rowsBox.lastElementChild;
      const row = last.cloneNode(true);
      next += 1;
      const id = `enter-${box.dataset.enter}-${next}`;
      const text = row.querySelector("input[type=text]");
      const hidden = row.querySelector("input[type=hidden]");
      text.value = ""; text.dataset.cardFor = id;
      hidden.value = ""; hidden.id = id; hidden.name = id; hidden.disabled = true;
      row.querySelectorAll("input[type=radio]").forEach(r => {
        r.checked = false; r.name = `enter-count-${box.dataset.enter}-${next}`; });
      row.querySelectorAll(".auto ul").forEach(ul => ul.remove());
      rowsBox.appendChild(row);
      bindCard(text);
      text.focus();
    });
  });
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

// The next player's sheet from a registration page (issue 35): sent as the 체크인 tab sends it
// (no player: whose sheet it is is asked there), then the 체크인 page watches its read.
for (const id of ["next-photo", "next-file"]) {
  const input = document.getElementById(id);
  if (!input) continue;
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    const status = document.getElementById("next-status");
    status.textContent = "올리는 중…"; status.className = "msg";
    try {
      const res = await postSheet(file, newUploadKey(), "");
      const body = await res.json().catch(() => ({}));
      if (res.status !== 202 || !body.job) throw new Error(body.error || "올리지 못했습니다");
      location.href = `/checkin?job=${encodeURIComponent(body.job)}`;
    } catch (e) {
      status.textContent = `${e.message || e} — 체크인 탭에서 다시 올리세요`; status.className = "err";
    }
  });
}
