// `npm run walls`, second half: dependency-cruiser forbids cycles between modules; this forbids
// them between rooms. A room is a folder of src/ (src/alerts, src/delivery, …), and inside
// src/monitoring each folder named in MONITORING_ROOMS (engine, platform, sources/<name>, …). Two rooms that import
// each other are one room in disguise: the shared part belongs in a room below both.
// Reads dependency-cruiser's JSON on standard input; prints each cycle and exits 1 when there is one.
import { readFileSync } from 'node:fs';

/**
 * Folders of src/monitoring that are rooms of their own (each source's folder under sources/ too);
 * everything else in src/monitoring is one room with it.
 */
const MONITORING_ROOMS = /^src\/monitoring\/(connection|platform|messages|engine|lineage|changes|sources\/[^/]+)\//;

/** The room of a module path, or null for files outside src/. */
export function roomOf(file) {
  const parts = file.split('/');
  if (parts[0] !== 'src') return null;
  if (parts.length === 2) return file; // a file at the top of src (app.ts, service.ts…) is its own room
  const sub = MONITORING_ROOMS.exec(file);
  if (sub) return sub[0].slice(0, -1);
  return parts.slice(0, 2).join('/');
}

/** Strongly connected components of more than one room (Tarjan). */
export function roomCycles(edges) {
  const graph = new Map();
  for (const [from, to] of edges) {
    if (!graph.has(from)) graph.set(from, new Set());
    if (!graph.has(to)) graph.set(to, new Set());
    graph.get(from).add(to);
  }
  let index = 0;
  const stack = [];
  const meta = new Map();
  const cycles = [];
  const visit = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index += 1;
    stack.push(v);
    for (const w of graph.get(v)) {
      if (!meta.has(w)) {
        visit(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) visit(v);
  return cycles;
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  const report = JSON.parse(readFileSync(0, 'utf8'));
  const edges = [];
  const examples = new Map();
  for (const module of report.modules) {
    const from = roomOf(module.source);
    for (const dep of module.dependencies) {
      const to = roomOf(dep.resolved);
      if (!from || !to || from === to) continue;
      edges.push([from, to]);
      const key = `${from} -> ${to}`;
      if (!examples.has(key)) examples.set(key, `${module.source} imports ${dep.resolved}`);
    }
  }
  const cycles = roomCycles(edges);
  for (const cycle of cycles) {
    process.stdout.write(`room cycle: ${cycle.join(', ')}\n`);
    for (const [key, example] of examples) {
      const [a, b] = key.split(' -> ');
      if (cycle.includes(a) && cycle.includes(b)) process.stdout.write(`  ${example}\n`);
    }
  }
  process.stdout.write(cycles.length === 0 ? `✔ no cycle between rooms (${new Set(edges.flat()).size} rooms)\n` : '');
  process.exit(cycles.length === 0 ? 0 : 1);
}
