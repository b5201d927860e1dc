// End-to-end test of Cairn's curation tools with the official TypeScript
// client, run by mcpserver/curation_e2e_test.go, which prepares the data:
//
//   node curation.mjs clusters CAIRN_BIN   `CAIRN_BIN mcp` over notes (three topics, a dated note, two notes
//                                          sharing a passage) and fixture sessions, embedded by a fake endpoint
//   node curation.mjs judged CAIRN_BIN     the same with quality notes and a judge endpoint (which checks each
//                                          request, fails one, and changes a cited note during a claim review)
//
// Prints one line per check and exits 1 on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

function check(ok, what, detail) {
  if (!ok) {
    console.log(`FAIL ${what}: ${detail === undefined ? "" : JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok   ${what}`);
}

async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  const text = res.content?.[0]?.text ?? "";
  return { isError: res.isError === true, text, out: res.isError ? undefined : JSON.parse(text) };
}

async function connect(bin) {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], env: process.env, stderr: "inherit" });
  const client = new Client({ name: "cairn-curation-e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const bytes = (s) => Buffer.byteLength(s, "utf8");

// fetchAll reads a cluster page by page and checks the paging.
async function fetchAll(client, clusterId, sort, topK) {
  const members = [];
  let offset = 0;
  for (;;) {
    const p = await call(client, "memory_fetch_cluster", { clusterId, sort, topK, offset });
    check(!p.isError && p.out.status === "ok" && p.out.page.offset === offset && p.out.page.returned === p.out.members.length,
      `fetch ${clusterId} ${sort} at ${offset}`, p.text);
    const textBytes = p.out.members.reduce((n, m) => n + bytes(m.text), 0);
    const paths = p.out.members.reduce((n, m) => n + m.sourcePaths.length, 0);
    check(textBytes <= 12000 && p.out.members.every((m) => bytes(m.text) <= 2000 && m.text.length > 0 && m.sourcePaths.length <= 5) && paths <= 50,
      `fetch ${sort} at ${offset}: excerpts and paths within budget`, { textBytes, paths });
    members.push(...p.out.members);
    if (!p.out.page.hasMore) {
      check(p.out.page.nextOffset === undefined && members.length === p.out.page.total, `fetch ${sort}: pages add up to the total`, p.out.page);
      return members;
    }
    check(p.out.page.nextOffset === offset + p.out.members.length, `fetch ${sort}: nextOffset follows the page`, p.out.page);
    offset = p.out.page.nextOffset;
  }
}

const sortTime = (m) => m.eventTime ?? m.sourceModifiedAt;

async function clusters(bin) {
  const client = await connect(bin);
  const none = await call(client, "memory_list_clusters", {});
  check(!none.isError && none.out.status === "not_analyzed" && none.out.clusters.length === 0 && none.out.hint, "list before any run: not_analyzed", none.text);

  const bad = await call(client, "memory_recluster", { hdbscan: { minClusterSize: 1 } });
  check(bad.isError && bad.text.includes("hdbscan.minClusterSize"), "recluster: an out-of-range option names the field", bad.text);
  const run = await call(client, "memory_recluster", { hdbscan: { minClusterSize: 4 }, seed: 42 });
  check(!run.isError && run.out.status === "ok" && run.out.clusters >= 2 && run.out.members > 28 && run.out.stale === false &&
    run.out.staleSince === null && /^[0-9a-f]{64}$/.test(run.out.inputDigest) && run.out.model === "topics" && run.out.dimensions === 32,
    "memory_recluster", run.text);

  const list = await call(client, "memory_list_clusters", { limit: 50 });
  check(!list.isError && list.out.status === "ok" && list.out.runId === run.out.runId && list.out.stale === false && list.out.clusters.length === run.out.clusters,
    "memory_list_clusters lists the run's clusters", list.text);
  const cs = list.out.clusters;
  check(cs.every((c, i) => i === 0 || c.size <= cs[i - 1].size), "clusters come largest first", cs.map((c) => c.size));
  const previewBytes = cs.reduce((n, c) => n + bytes(c.preview.text), 0);
  check(cs.every((c) => /^[0-9a-f]{10}$/.test(c.clusterId) && c.preview && bytes(c.preview.text) <= 600 && c.preview.text.length > 0 &&
    c.preview.sourcePaths.length > 0) && previewBytes <= 12000, "each cluster has a preview within the budgets", { previewBytes });
  const noiseSize = list.out.noise ? list.out.noise.size : 0;
  check(cs.reduce((n, c) => n + c.size, 0) + noiseSize === run.out.members, "sizes and noise add up to the members", { noiseSize });
  const limited = await call(client, "memory_list_clusters", { limit: 1 });
  check(!limited.isError && limited.out.clusters.length === 1 && limited.out.clusters[0].clusterId === cs[0].clusterId, "list limit 1", limited.text);

  const first = cs[0];
  const rep = await fetchAll(client, first.clusterId, "representative", 3);
  check(rep.length === first.size && rep[0].representativeRank === 1, "representative order starts at rank 1", rep[0]);
  check(rep.every((m, i) => i === 0 || m.representativeRank === null || (rep[i - 1].representativeRank !== null && m.representativeRank > rep[i - 1].representativeRank)),
    "representative ranks ascend, unranked last", rep.map((m) => m.representativeRank));
  const desc = await fetchAll(client, first.clusterId, "score_desc", 4);
  check(desc.every((m, i) => i === 0 || m.probability <= desc[i - 1].probability), "score_desc: probabilities descend", desc.map((m) => m.probability));
  const asc = await fetchAll(client, first.clusterId, "score_asc", 4);
  check(asc.every((m, i) => i === 0 || m.probability >= asc[i - 1].probability), "score_asc: probabilities ascend", asc.map((m) => m.probability));
  const dd = await fetchAll(client, first.clusterId, "date_desc", 5);
  check(dd.every((m, i) => i === 0 || sortTime(m) <= sortTime(dd[i - 1])), "date_desc: times descend", dd.map(sortTime));

  // A date sort over everything: members without an event time get tasks.
  const everything = [];
  for (const c of [...cs, ...(list.out.noise ? [list.out.noise] : [])]) {
    const ms = await fetchAll(client, c.clusterId, "date_asc", 50);
    check(ms.every((m, i) => i === 0 || sortTime(m) >= sortTime(ms[i - 1])), `date_asc in ${c.clusterId}: times ascend`, ms.map(sortTime));
    everything.push(...ms);
  }
  const dated = everything.find((m) => m.sourcePaths.includes("cairn://notes/journal/2024-03-05.md"));
  check(dated?.eventTime === "2024-03-05T00:00:00.000Z" && dated.eventTimeBasis === "path", "a dated file name is the event time", dated);
  const session = everything.find((m) => m.sourcePaths.some((p) => p.startsWith("cairn://sessions/")));
  check(session?.eventTimeBasis === "session" && session.eventTime, "a session's start is its event time", session);

  const tasks = await call(client, "memory_list_maintenance_tasks", { limit: 10 });
  check(!tasks.isError && tasks.out.status === "ok" && tasks.out.tasks.length === 10, "memory_list_maintenance_tasks lists ten", tasks.text);
  const amb = tasks.out.tasks.filter((t) => t.type === "ambiguous_event_time");
  check(amb.length > 0 && amb.every((t) => t.status === "pending" && t.detail.instruction && /^[0-9a-f]{64}$/.test(t.contentFingerprint) && t.corpus === "notes"),
    "the date sort filed ambiguous_event_time tasks", amb);
  const dup = await call(client, "memory_list_maintenance_tasks", { limit: 10, status: "pending" });
  const allPending = dup.out.tasks;
  check(allPending.every((t, i) => i === 0 || t.createdAt >= allPending[i - 1].createdAt), "tasks come oldest first", allPending.map((t) => t.createdAt));

  const target = amb[0];
  const refused = await call(client, "memory_update_maintenance_task", { taskId: target.id, action: "resolve", note: "no date" });
  check(refused.isError && refused.text.includes("annotation"), "resolving ambiguous_event_time without an annotation is refused", refused.text);
  const resolved = await call(client, "memory_update_maintenance_task", {
    taskId: target.id, action: "resolve", note: "dated from the minutes",
    annotation: { eventTime: "2021-11-30T08:15:00+01:00", basis: "agent_verified", evidence: "the minutes of that meeting" },
  });
  check(!resolved.isError && resolved.out.status === "ok" && resolved.out.task.status === "resolved" && resolved.out.task.resolutionNote === "dated from the minutes",
    "memory_update_maintenance_task resolves with an annotation", resolved.text);
  let annotated;
  for (const c of [...cs, ...(list.out.noise ? [list.out.noise] : [])]) {
    const ms = await fetchAll(client, c.clusterId, "date_asc", 50);
    annotated ??= ms.find((m) => m.contentFingerprint === target.contentFingerprint);
  }
  check(annotated?.eventTime === "2021-11-30T07:15:00.000Z" && annotated.eventTimeBasis === "agent_verified" &&
    annotated.eventTimeSource === `cairn://notes/${target.path}`, "the next fetch uses the annotation", annotated);
  const again = await call(client, "memory_list_maintenance_tasks", { status: "resolved" });
  check(!again.isError && again.out.tasks.length === 1 && again.out.tasks[0].id === target.id, "the resolved task stays resolved", again.text);

  // Reading every cluster has met the passage the two dup notes share.
  // The inbox shows the ten oldest pending: defer ambiguous ones until it
  // shows the duplicate task.
  let dupTask;
  for (let i = 0; i < 60 && !dupTask; i++) {
    const page = await call(client, "memory_list_maintenance_tasks", { limit: 10 });
    dupTask = page.out.tasks.find((t) => t.type === "exact_duplicate");
    const next = page.out.tasks.find((t) => t.type === "ambiguous_event_time");
    if (dupTask || !next) break;
    await call(client, "memory_update_maintenance_task", { taskId: next.id, action: "defer", note: "later" });
  }
  check(dupTask && ["dup/a.md", "dup/b.md"].includes(dupTask.path) && dupTask.detail.occurrences === 2 && dupTask.detail.duplicates.length === 1,
    "a page with the shared passage filed an exact_duplicate task", dupTask);
  const noAnn = await call(client, "memory_update_maintenance_task", {
    taskId: dupTask.id, action: "resolve", annotation: { eventTime: "2021-01-01T00:00:00Z", basis: "path", evidence: "x" } });
  check(noAnn.isError && noAnn.text.includes("annotation"), "an annotation on a duplicate task is refused", noAnn.text);
  const closed = await call(client, "memory_update_maintenance_task", { taskId: dupTask.id, action: "irrelevant", note: "the repetition is on purpose" });
  check(!closed.isError && closed.out.task.status === "irrelevant", "the duplicate task is closed", closed.text);
  await fetchAll(client, first.clusterId, "representative", 50);
  for (const c of cs) await fetchAll(client, c.clusterId, "representative", 50);
  const still = await call(client, "memory_list_maintenance_tasks", { status: "irrelevant" });
  check(still.out.tasks.some((t) => t.id === dupTask.id), "a closed task never reopens for the same content", still.text);
  const missing = await call(client, "memory_update_maintenance_task", { taskId: "ffffffffffffffff", action: "defer" });
  check(!missing.isError && missing.out.status === "not_found", "an unknown task is not_found", missing.text);
  await client.close();
}

async function judged(bin) {
  const client = await connect(bin);
  const bad = await call(client, "memory_audit_quality", { limit: 21 });
  check(bad.isError && bad.text.includes("limit"), "audit: limit 21 names the field", bad.text);
  const badAfter = await call(client, "memory_audit_quality", { after: { documentId: 0, seq: 0 } });
  check(badAfter.isError && badAfter.text.includes("after.documentId"), "audit: after.documentId 0 names the field", badAfter.text);

  // Page through everything; the judge fails one request once.
  let after, partial, pages = 0, scanned = 0, flagged = 0, last;
  for (;;) {
    const page = await call(client, "memory_audit_quality", after ? { limit: 20, after } : { limit: 20 });
    check(!page.isError && ["ok", "partial"].includes(page.out.status) && page.out.policy === "judge-m:quality-v3-isolated" &&
      page.out.scope.corpora.join() === "notes", `audit page ${pages}`, page.text);
    pages++;
    scanned += page.out.scanned;
    flagged += page.out.flagged;
    last = page.out;
    if (page.out.status === "partial") {
      partial = page.out;
      check(page.out.error && page.out.next && !page.out.done, "a failed judgment makes the page partial, with a cursor", page.out);
    }
    if (page.out.done) break;
    check(page.out.next, "a page that is not done has next", page.out);
    after = page.out.next;
    if (pages > 20) break;
  }
  check(partial !== undefined, "one page was partial", pages);
  check(last.done && last.next === undefined && flagged >= 2, "the audit resumed from the cursor and finished", { scanned, flagged });
  const groups = last.groups;
  check(groups.length >= 2 && groups[0].triage === "preserve_evidence_repair" && groups.every((g) => g.examples.length <= 3 && g.pending >= 1),
    "groups: evidence to preserve first", groups);
  const reasons = groups.map((g) => g.reason);
  check(reasons.includes("possible_double_encoded_message") && reasons.includes("possible_ingestion_noise"), "encoded and noisy chunks are flagged", reasons);

  const again = await call(client, "memory_audit_quality", { limit: 20 });
  check(!again.isError && again.out.judged === 0 && again.out.cached > 0, "a second audit comes from the cache", again.text);

  const tasks = await call(client, "memory_list_maintenance_tasks", { limit: 10 });
  const q = tasks.out.tasks.filter((t) => t.type === "quality_review");
  check(q.length >= 2 && tasks.out.tasks[0].type === "quality_review" && tasks.out.tasks[0].detail.triage === "preserve_evidence_repair" &&
    q.every((t) => t.indexPresence === "present_in_index" && t.detail.excerpt.length <= 400 && t.detail.instruction),
    "quality_review tasks, the urgent one first, present in the index", tasks.out.tasks.slice(0, 3));
  const noNote = await call(client, "memory_update_maintenance_task", { taskId: q[0].id, action: "resolve" });
  check(noNote.isError && noNote.text.includes("note"), "resolving a quality_review needs a note", noNote.text);

  const run = await call(client, "memory_recluster", { hdbscan: { minClusterSize: 4 } });
  check(!run.isError && run.out.status === "ok", "recluster for the review", run.text);
  const list = await call(client, "memory_list_clusters", { limit: 1 });
  const review = await call(client, "memory_review_cluster", { clusterId: list.out.clusters[0].clusterId });
  check(!review.isError && review.out.status === "ok" && review.out.runId === run.out.runId && review.out.sampled >= 2 && review.out.sampled <= 6 &&
    review.out.members.every((m) => m.defect === "boilerplate" && m.flagged && m.from >= 1 && m.path.startsWith("cairn://notes/")) &&
    review.out.recurring.length === 1 && review.out.recurring[0].defect === "boilerplate" && review.out.policy === "judge-m:cluster-defects-v1",
    "memory_review_cluster flags a recurring defect", review.text);
  const gone = await call(client, "memory_review_cluster", { clusterId: "0000000000" });
  check(!gone.isError && gone.out.status === "not_found", "review of an unknown cluster: not_found", gone.text);

  const claim = await call(client, "memory_review_claim", {
    claim: "Deploys happen on Fridays", citations: [{ path: "cairn://notes/claims/deploy.md", from: 3, lines: 1 }] });
  check(!claim.isError && claim.out.status === "ok" && claim.out.verdict === "supports" && claim.out.needsReview === false &&
    claim.out.evidence.length === 1 && /^[0-9a-f]{64}$/.test(claim.out.evidence[0].documentHash) && claim.out.policy === "judge-m:claim-v1",
    "memory_review_claim supports", claim.text);
  const outside = await call(client, "memory_review_claim", {
    claim: "x", citations: [{ path: "cairn://sessions/whatever.md", from: 1, lines: 1 }] });
  check(!outside.isError && outside.out.status === "unavailable" && outside.out.needsReview === true, "a citation outside evidenceReview.corpora is unavailable", outside.text);
  const tooMany = await call(client, "memory_review_claim", { claim: "x", citations: [1, 2, 3, 4].map(() => ({ path: "cairn://notes/a.md", from: 1, lines: 1 })) });
  check(tooMany.isError && tooMany.text.includes("citations"), "four citations name the field", tooMany.text);
  const changed = await call(client, "memory_review_claim", {
    claim: "The office is in Berlin", citations: [{ path: "cairn://notes/claims/office.md", from: 3, lines: 1 }] });
  check(!changed.isError && changed.out.status === "unavailable" && changed.out.needsReview === true && changed.out.reason.includes("changed") &&
    changed.out.verdict === undefined, "a claim whose cited document changed during the review is unavailable", changed.text);
  await client.close();
}

const [mode, a] = process.argv.slice(2);
try {
  if (mode === "clusters") await clusters(a);
  else if (mode === "judged") await judged(a);
  else check(false, "usage", "node curation.mjs clusters|judged CAIRN_BIN");
  console.log("PASS");
  process.exit(0);
} catch (e) {
  console.log(`FAIL ${e?.stack ?? e}`);
  process.exit(1);
}
