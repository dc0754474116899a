#!/usr/bin/env node
// Lint Cypher with Neo4j's own front end (parser + semantic analysis, compiled to JavaScript in
// @neo4j-cypher/language-support), so the Neo4j dialect is checked on machines without a server.
//
// Input, either:
//   node lint.mjs < queries.json      a JSON list of {name, text, params?} (params: the names the
//                                     query may use as $parameters; omitted = any $param is fine)
//   node lint.mjs a.cypher b.cypher   files; `// params:` in the header declares the parameters and
//                                     lines holding only `;` separate statements (schema files)
// Options:
//   --text            one line per diagnostic instead of JSON (for people)
//   --no-catalogue    do not load the package's recorded catalogue of built-in functions and
//                     procedures (then unknown functions/procedures are not reported)
//   --labels=A,B      with --rel-types: also warn about labels/relationship types outside the lists
//   --rel-types=R,S
//   --no-cache        re-lint everything; by default results are kept in .cache/results.json, keyed by
//                     a hash of the text, parameters, options, signatures and package version
// Output (JSON): [{name, diagnostics: [{severity, message, line, column, end_line, end_column}]}]
// with 1-based lines and columns relative to the text given. Exit code: 0 no errors (warnings are
// allowed), 1 at least one error, 2 bad input.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Loaded on the first cache miss only: importing Neo4j's front end alone takes seconds.
let cypher = null;

const VERSION = 'CYPHER 5';
const SEVERITY = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };
const HERE = dirname(fileURLToPath(import.meta.url));

function fail(message) {
  process.stderr.write(`cypher-lint: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {
    text: false,
    catalogue: true,
    cache: true,
    labels: null,
    relTypes: null,
    files: [],
  };
  for (const arg of argv) {
    if (arg === '--text') opts.text = true;
    else if (arg === '--no-catalogue') opts.catalogue = false;
    else if (arg === '--no-cache') opts.cache = false;
    else if (arg.startsWith('--labels=')) opts.labels = arg.slice(9).split(',').filter(Boolean);
    else if (arg.startsWith('--rel-types=')) opts.relTypes = arg.slice(12).split(',').filter(Boolean);
    else if (arg === '-h' || arg === '--help') {
      process.stdout.write(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n\n')[0]);
      process.stdout.write('\n');
      process.exit(0);
    } else if (arg.startsWith('--')) fail(`unknown option ${arg}`);
    else opts.files.push(arg);
  }
  return opts;
}

// Neo4j 5.26 signatures remgraph relies on, merged over the catalogue the package records from a
// real server (CYPHER 5 registry). APOC and GDS are dropped: remgraph must not call them, so a call
// to either is reported as an unknown procedure or function.
function buildCatalogue(useRecorded) {
  const pinned = JSON.parse(readFileSync(join(HERE, 'neo4j-5.26-signatures.json'), 'utf8'));
  const recorded = useRecorded ? cypher.testData?.mockSchema : undefined;
  const keep = (name) => !/^(apoc|gds)\./.test(name);
  const pick = (registry) =>
    Object.fromEntries(Object.entries(registry ?? {}).filter(([name]) => keep(name)));
  if (!recorded) {
    // Without the full list, only the pinned procedures are known; leave functions unchecked.
    return { procedures: { [VERSION]: pinned.procedures } };
  }
  return {
    procedures: { [VERSION]: { ...pick(recorded.procedures?.[VERSION]), ...pinned.procedures } },
    functions: { [VERSION]: { ...pick(recorded.functions?.[VERSION]), ...pinned.functions } },
  };
}

function splitStatements(text) {
  const parts = [];
  let current = [];
  let startLine = 0;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === ';') {
      parts.push({ text: current.join('\n'), lineOffset: startLine });
      current = [];
      startLine = i + 1;
    } else current.push(line);
  });
  parts.push({ text: current.join('\n'), lineOffset: startLine });
  return parts.filter((p) => p.text.replace(/\/\/[^\n]*/g, '').trim() !== '');
}

function headerParams(text) {
  for (const line of text.split('\n')) {
    const m = /^\s*\/\/\s*params\s*:(.*)$/.exec(line);
    if (m) return m[1].split(',').map((p) => p.trim()).filter(Boolean);
    if (!/^\s*\/\//.test(line)) break;
  }
  return null;
}

function readInputs(opts) {
  if (opts.files.length > 0) {
    const items = [];
    for (const file of opts.files) {
      let text;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        fail(`cannot read ${file}: ${err.message}`);
      }
      const params = headerParams(text);
      const parts = splitStatements(text);
      parts.forEach((part, i) => {
        items.push({
          name: parts.length > 1 ? `${file}#${i + 1}` : file,
          text: part.text,
          params,
          lineOffset: part.lineOffset,
        });
      });
    }
    return items;
  }
  let data;
  try {
    data = JSON.parse(readFileSync(0, 'utf8'));
  } catch (err) {
    fail(`stdin is not a JSON list of {name, text}: ${err.message}`);
  }
  if (!Array.isArray(data)) fail('stdin must hold a JSON list of {name, text}');
  return data.map((item, i) => {
    if (typeof item?.name !== 'string' || typeof item?.text !== 'string') {
      fail(`item ${i} needs string fields "name" and "text"`);
    }
    const params = Array.isArray(item.params) ? item.params.map(String) : null;
    return { name: item.name, text: item.text, params, lineOffset: 0 };
  });
}

function lintOne(item, catalogue, opts) {
  const schema = { ...catalogue, defaultLanguage: VERSION };
  if (item.params) {
    schema.parameters = Object.fromEntries(item.params.map((p) => [p, null]));
  }
  if (opts.labels && opts.relTypes) {
    schema.labels = opts.labels;
    schema.relationshipTypes = opts.relTypes;
  }
  const { diagnostics, symbolTables } = cypher.lintCypherQuery(item.text, schema, {
    consoleCommandsEnabled: false,
  });
  const found = diagnostics.filter((d) => item.params || cypher.isNotParamError(d));
  // The package swallows exceptions from the semantic analysis and then reports nothing; every
  // statement but DDL defines some symbol, so an empty symbol table means only syntax was checked.
  const code = item.text.replace(/\/\/[^\n]*/g, '').trim();
  const ddl = /^(CREATE|DROP)\s+(?!\(|\w+\s*=)/i.test(code) || /^ALTER\s/i.test(code);
  const symbols = symbolTables.reduce((n, table) => n + table.length, 0);
  if (!ddl && symbols === 0 && !found.some((d) => d.severity === 1)) {
    found.push({
      severity: 2,
      message:
        "Neo4j's semantic analysis returned no symbols for this statement (it may have failed): " +
        'only its syntax was checked',
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    });
  }
  return found.map((d) => ({
      severity: SEVERITY[d.severity] ?? String(d.severity),
      message: d.message,
      line: d.range.start.line + 1 + item.lineOffset,
      column: d.range.start.character + 1,
      end_line: d.range.end.line + 1 + item.lineOffset,
      end_column: d.range.end.character + 1,
    }));
}

// Neo4j's semantic analysis costs ~50-200 ms a statement, so results are cached by content.
const CACHE_DIR = join(HERE, '.cache');
const CACHE_FILE = join(CACHE_DIR, 'results.json');

function cacheSalt(opts) {
  const pkg = JSON.parse(
    readFileSync(join(HERE, 'node_modules/@neo4j-cypher/language-support/package.json'), 'utf8'),
  );
  return [
    pkg.version,
    readFileSync(fileURLToPath(import.meta.url), 'utf8'),
    readFileSync(join(HERE, 'neo4j-5.26-signatures.json'), 'utf8'),
    JSON.stringify([opts.catalogue, opts.labels, opts.relTypes]),
  ].join('\0');
}

function loadCache(opts) {
  if (!opts.cache) return {};
  try {
    return JSON.parse(readFileSync(CACHE_FILE, 'utf8'));
  } catch {
    return {};
  }
}

function saveCache(cache) {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = `${CACHE_FILE}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(cache));
    renameSync(tmp, CACHE_FILE);
  } catch {
    // a read-only checkout only loses the cache
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const items = readInputs(opts);
  const salt = cacheSalt(opts);
  const cache = loadCache(opts);
  const fresh = {};
  let catalogue = null;
  const results = [];
  for (const item of items) {
    const key = createHash('sha256')
      .update(salt)
      .update('\0')
      .update(JSON.stringify([item.text, item.params, item.lineOffset]))
      .digest('hex');
    let diagnostics = cache[key];
    if (!diagnostics) {
      cypher ??= await import('@neo4j-cypher/language-support');
      catalogue ??= buildCatalogue(opts.catalogue);
      diagnostics = lintOne(item, catalogue, opts);
    }
    fresh[key] = diagnostics;
    results.push({ name: item.name, diagnostics });
  }
  if (opts.cache) {
    // keep older entries (other inputs share the cache) unless it grew past a few thousand
    const merged = { ...cache, ...fresh };
    saveCache(Object.keys(merged).length > 5000 ? fresh : merged);
  }
  let errors = 0;
  if (opts.text) {
    let warnings = 0;
    for (const r of results) {
      for (const d of r.diagnostics) {
        if (d.severity === 'error') errors += 1;
        else warnings += 1;
        process.stdout.write(`${r.name}:${d.line}:${d.column}: ${d.severity}: ${d.message}\n`);
      }
    }
    process.stdout.write(
      `${results.length} statements checked: ${errors} errors, ${warnings} warnings\n`,
    );
  } else {
    for (const r of results) errors += r.diagnostics.filter((d) => d.severity === 'error').length;
    process.stdout.write(`${JSON.stringify(results, null, 1)}\n`);
  }
  process.exitCode = errors > 0 ? 1 : 0;
}

await main();
