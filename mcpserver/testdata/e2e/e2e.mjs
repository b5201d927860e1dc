// End-to-end test of Cairn's MCP server with the official TypeScript client.
//
//   node e2e.mjs stdio CAIRN_BIN            spawns `CAIRN_BIN mcp` (CAIRN_HOME from the environment)
//   node e2e.mjs http URL TOKEN             connects to `cairn serve` at URL with and without TOKEN
//   node e2e.mjs firstuse CAIRN_BIN NOTES   `CAIRN_BIN mcp --agent claude` on a never-synced index whose
//                                           embedder cannot load: the first search finds a note, lexically;
//                                           a note written into NOTES afterwards is found, with no sync call
//   node e2e.mjs empty CAIRN_BIN            `mcp --agent claude` over empty corpora: search and diagnostics say so
//   node e2e.mjs damaged CAIRN_BIN DBFILE   `mcp --agent claude` with a damaged index.db: it starts, and
//                                           diagnostics and search name DBFILE
//   node e2e.mjs recall CAIRN_BIN           `CAIRN_BIN mcp` over sessions consolidated with a fake model:
//                                           memory_search of the memories corpus with an event-time range
//                                           returns only the memories in it, with their fields
//
// Prints one line per check and exits 1 on the first failure. Run by
// mcpserver/e2e_test.go, which prepares the data and the server.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const TOOLS = ["memory_audit_quality", "memory_diagnostics", "memory_explore", "memory_fetch_cluster", "memory_forget", "memory_gather", "memory_get",
  "memory_list_clusters", "memory_list_maintenance_tasks", "memory_recluster", "memory_remember", "memory_review_claim",
  "memory_review_cluster", "memory_search", "memory_sync_sessions", "memory_sync_status", "memory_update_maintenance_task"];

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
  return { isError: res.isError === true, text, out: res.isError ? undefined : JSON.parse(text), structured: res.structuredContent };
}

// exercise lists the tools and calls each, over any transport.
async function exercise(client, label) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(TOOLS), `${label}: lists the ${TOOLS.length} tools`, names);
  for (const t of tools) {
    check(t.inputSchema?.type === "object" && t.description, `${label}: ${t.name} has a schema and a description`, t);
  }

  const search = await call(client, "memory_search", { query: "busy timeout", maxResults: 3 });
  check(!search.isError && search.out.results.length > 0, `${label}: memory_search finds the note`, search.text);
  const hit = search.out.results[0];
  check(hit.path === "cairn://notes/db.md" && Math.round(hit.score * 100) / 100 === hit.score, `${label}: hit path and rounded score`, hit);
  check(search.structured?.results?.length === search.out.results.length, `${label}: structured content matches the text`, search.structured);

  const bad = await call(client, "memory_search", { query: "x", maxResults: 50 });
  check(bad.isError && bad.text.includes("maxResults"), `${label}: out-of-range maxResults is a tool error naming the field`, bad.text);
  const unknown = await call(client, "memory_search", { query: "x", limit: 3 });
  check(unknown.isError && unknown.text.includes('"limit"'), `${label}: an unknown field is a tool error`, unknown.text);

  const get = await call(client, "memory_get", { path: hit.path, from: hit.startLine, lines: 5 });
  check(!get.isError && get.out.status === "ok" && get.out.text.includes("busy_timeout"), `${label}: memory_get reads the hit`, get.text);
  const trav = await call(client, "memory_get", { path: "cairn://notes/../../../etc/passwd" });
  check(!trav.isError && trav.out.status === "not_found" && trav.out.text === "", `${label}: traversal is not_found`, trav.text);

  const sync = await call(client, "memory_sync_sessions", { force: false });
  check(!sync.isError && ["started", "already_running"].includes(sync.out.status), `${label}: memory_sync_sessions starts`, sync.text);
  let status;
  for (let i = 0; i < 600; i++) {
    status = await call(client, "memory_sync_status", {});
    if (status.isError || status.out.status !== "running") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  check(!status.isError && status.out.status === "completed", `${label}: memory_sync_status reports the completed sync`, status.text);

  const told = await call(client, "memory_remember", { kind: "fact", title: "Okapi review", summary: "The okapi review is on Fridays." });
  // Over stateless HTTP no session keeps the client's name: the agent id tells.
  const teller = label === "stdio" ? "cairn-e2e" : "default";
  check(!told.isError && told.out.provenance.startsWith(`told by ${teller} at `), `${label}: memory_remember stores a memory told by ${teller}`, told.text);
  const read = await call(client, "memory_get", { path: told.out.path });
  check(!read.isError && read.out.status === "ok" && read.out.text.includes("okapi review"), `${label}: memory_get reads the remembered memory`, read.text);
  const gathered = await call(client, "memory_gather", { question: "When is the okapi review?" });
  check(!gathered.isError && gathered.out.memories.some((m) => m.id === told.out.id), `${label}: memory_gather answers with the remembered memory`, gathered.text);
  const explored = await call(client, "memory_explore", { ids: [told.out.id] });
  check(!explored.isError && explored.out.found.length === 1 && explored.out.found[0].id === told.out.id, `${label}: memory_explore starts from the memory`, explored.text);
  const badTold = await call(client, "memory_remember", { kind: "fact", summary: "no title" });
  check(badTold.isError && badTold.text.includes("title is required"), `${label}: memory_remember names a missing field`, badTold.text);

  const diag = await call(client, "memory_diagnostics", {});
  check(!diag.isError && diag.out.status === "ok" && diag.out.index.retrieval.documents > 0, `${label}: memory_diagnostics`, diag.text);
}

async function stdio(bin) {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], env: process.env, stderr: "inherit" });
  const client = new Client({ name: "cairn-e2e", version: "1.0.0" });
  await client.connect(transport);
  check(client.getServerVersion()?.name === "cairn", "stdio: server says it is cairn", client.getServerVersion());
  await exercise(client, "stdio");
  await client.close();
}

async function http(url, token) {
  const authed = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "cairn-e2e", version: "1.0.0" });
  await client.connect(authed);
  await exercise(client, "http");
  await client.close();

  const bare = new StreamableHTTPClientTransport(new URL(url));
  const anon = new Client({ name: "cairn-e2e", version: "1.0.0" });
  let err;
  try {
    await anon.connect(bare);
  } catch (e) {
    err = e;
  }
  const msg = String(err?.message ?? err);
  check(err !== undefined && (err.code === 401 || msg.includes("401") || /unauthorized/i.test(msg)), "http: without the token the server answers 401", msg);
}

async function spawnAgent(bin) {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--agent", "claude"], env: process.env, stderr: "inherit" });
  const client = new Client({ name: "cairn-e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

// poll calls fn until it returns a truthy value or the deadline passes.
async function poll(fn, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function firstuse(bin, notes) {
  const client = await spawnAgent(bin);
  const diag = await call(client, "memory_diagnostics", {});
  const r = diag.out?.index?.retrieval;
  check(!diag.isError && r?.mode === "lexical" && r?.vectorsOff, "firstuse: diagnostics say vectors are off and why", diag.text);
  const first = await call(client, "memory_search", { query: "busy timeout" });
  check(!first.isError && first.out.results[0]?.path === "cairn://notes/db.md", "firstuse: the first search finds a note nobody synced", first.text);
  check(first.out.warning?.includes("vectors are off"), "firstuse: the search says vectors are off", first.text);
  const { writeFileSync } = await import("node:fs");
  writeFileSync(`${notes}/later.md`, "# Later\n\nThe quokka census ends in March.\n");
  const found = await poll(async () => {
    const s = await call(client, "memory_search", { query: "quokka census", minScore: 0 });
    return !s.isError && s.out.results.some((h) => h.path === "cairn://notes/later.md") ? s : undefined;
  }, 15000);
  check(found !== undefined, "firstuse: a note written after the start is found without a sync call", found?.text);
  const get = await call(client, "memory_get", { path: "cairn://NOTES/later.md" });
  check(!get.isError && get.out.status === "ok" && get.out.text.includes("quokka"), "firstuse: memory_get matches the corpus ignoring case", get.text);
  await client.close();
}

async function empty(bin) {
  const client = await spawnAgent(bin);
  const s = await call(client, "memory_search", { query: "anything" });
  check(!s.isError && s.out.results.length === 0 && s.out.notice?.includes("index is empty"), "empty: search says the index is empty", s.text);
  const diag = await call(client, "memory_diagnostics", {});
  check(!diag.isError && diag.out.index.warnings?.some((w) => w.includes("index is empty")), "empty: diagnostics warn", diag.text);
  await client.close();
}

async function damaged(bin, dbfile) {
  const client = await spawnAgent(bin);
  const diag = await call(client, "memory_diagnostics", {});
  check(!diag.isError && diag.out.index.status === "unavailable" && diag.out.index.error.includes(dbfile), "damaged: diagnostics name the file", diag.text);
  const s = await call(client, "memory_search", { query: "anything" });
  check(!s.isError && s.out.results.length === 0 && s.out.error.includes(dbfile), "damaged: search answers with the error", s.text);
  await client.close();
}

// recall searches the memories the fake model made of the fixture sessions
// (observations dated 2023-06-10 and 2024-02, episodes dated the day they
// were told) with and without an event-time range.
async function recall(bin) {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], env: process.env, stderr: "inherit" });
  const client = new Client({ name: "cairn-e2e", version: "1.0.0" });
  await client.connect(transport);
  const args = { query: "lantern", corpora: ["memories"], minScore: 0, maxResults: 200 };
  const all = await call(client, "memory_search", args);
  check(!all.isError && all.out.results.length > 0, "recall: memory_search finds the memories", all.text);
  const dates = new Set(all.out.results.map((h) => h.memory?.eventDate));
  check(dates.has("2023-06-10") && dates.has("2024-02"), "recall: memories of several dates without a range", [...dates]);
  const june = await call(client, "memory_search", { ...args, memoryFilter: { from: "2023-06", to: "2023-06" } });
  check(!june.isError && june.out.results.length > 0, "recall: the June 2023 range finds memories", june.text);
  check(june.out.results.length === all.out.results.filter((h) => h.memory?.eventDate === "2023-06-10").length,
    "recall: the range keeps every memory in it", june.text);
  for (const h of june.out.results) {
    const m = h.memory;
    check(h.corpus === "memories" && m && m.eventDate === "2023-06-10" && m.kind === "observation" && m.status === "active" &&
      m.id.startsWith("m-") && m.toldAt && m.title && Array.isArray(m.sources) && m.sources.length > 0 && m.sources[0].path.startsWith("cairn://sessions/"),
      `recall: ${m?.id} is in June 2023 with its fields`, h);
  }
  const bad = await call(client, "memory_search", { ...args, memoryFilter: { from: "June" } });
  check(bad.isError && bad.text.includes("memoryFilter.from"), "recall: a bad range names the field", bad.text);
  await client.close();
}

const [mode, a, b] = process.argv.slice(2);
try {
  if (mode === "stdio") await stdio(a);
  else if (mode === "http") await http(a, b);
  else if (mode === "firstuse") await firstuse(a, b);
  else if (mode === "empty") await empty(a);
  else if (mode === "damaged") await damaged(a, b);
  else if (mode === "recall") await recall(a);
  else check(false, "usage", "node e2e.mjs stdio CAIRN_BIN | http URL TOKEN");
  console.log("PASS");
  process.exit(0);
} catch (e) {
  console.log(`FAIL ${e?.stack ?? e}`);
  process.exit(1);
}
