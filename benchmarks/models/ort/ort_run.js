#!/usr/bin/env node
// Runs an ONNX model in ONNX Runtime (CPU execution provider, all graph
// optimizations) the way `kiln run` runs a module: inputs and outputs are .npy
// files, --repeat N prints
//   latency_ms median=... min=... max=... runs=N
// timed by ORT's own profiler (its per-run "model_run" events), so the Node
// binding's overhead is left out. Usable as `kiln bench --baseline-cmd`.
// --output-dir DIR writes every output as DIR/K.npy (K: its index) and lists
// them in DIR/outputs.json ({"name", "file"}; "skipped" for a type .npy cannot
// hold): `kiln compare --reference ort` reads them.
// --node-times prints, after the latency line, each node's median kernel time
// over the timed runs (ORT's per-node "_kernel_time" events, after its fusions),
// to set beside `kiln run --profile`.
//
// usage: node ort_run.js MODEL.onnx --input [NAME=]FILE.npy ... [--output FILE.npy ...]
//        [--output-dir DIR] [--repeat N] [--warmup N] [--threads N] [--node-times]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');

const DTYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<f2': ['float16', Uint16Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '<i2': ['int16', Int16Array],
  '|i1': ['int8', Int8Array], '|u1': ['uint8', Uint8Array], '<u2': ['uint16', Uint16Array],
  '<u4': ['uint32', Uint32Array], '<u8': ['uint64', BigUint64Array], '|b1': ['bool', Uint8Array],
};

function fail(message) {
  process.stderr.write(`ort_run: ${message}\n`);
  process.exit(1);
}

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') fail(`'${file}' is not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) {
    fail(`'${file}': unsupported .npy header ${header.trim()}`);
  }
  const entry = DTYPES[descr[1]];
  if (!entry) fail(`'${file}': unsupported dtype ${descr[1]}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const dataStart = start + headerLen;
  const bytes = buf.subarray(dataStart, dataStart + count * entry[1].BYTES_PER_ELEMENT);
  const data = new entry[1](count);
  new Uint8Array(data.buffer).set(bytes);
  const values = entry[0] === 'bool' ? Uint8Array.from(data, (v) => (v ? 1 : 0)) : data;
  return new ort.Tensor(entry[0], entry[0] === 'bool' ? Array.from(values, Boolean) : values, dims);
}

function writeNpy(file, tensor) {
  const descr = Object.keys(DTYPES).find((k) => DTYPES[k][0] === tensor.type);
  if (!descr) fail(`output of type ${tensor.type} cannot be written as .npy`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const data = tensor.type === 'bool' ? Uint8Array.from(tensor.data, (v) => (v ? 1 : 0)) : tensor.data;
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

function parseArgs(argv) {
  const o = { inputs: [], outputs: [], repeat: 0, warmup: 2, threads: 1 };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : fail(`${a} needs a value`));
    if (a === '--input') o.inputs.push(value());
    else if (a === '--output') o.outputs.push(value());
    else if (a === '--output-dir') o.outputDir = value();
    else if (a === '--repeat') o.repeat = Number(value());
    else if (a === '--warmup') o.warmup = Number(value());
    else if (a === '--threads') o.threads = Number(value());
    else if (a === '--node-times') o.nodeTimes = true;
    else if (a.startsWith('--')) fail(`unknown option ${a}`);
    else if (!o.model) o.model = a;
    else fail(`unexpected argument ${a}`);
  }
  if (!o.model) fail('usage: node ort_run.js MODEL.onnx --input FILE.npy ... [--output FILE.npy ...] [--output-dir DIR] [--repeat N] [--warmup N] [--threads N]');
  return o;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// One line per node in execution order: median microseconds over the last
// `repeat` runs, the op type, the node name.
function printNodeTimes(events, repeat) {
  const byNode = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const name = e.name.slice(0, -'_kernel_time'.length);
    if (!byNode.has(name)) byNode.set(name, { op: (e.args && e.args.op_name) || '?', times: [] });
    byNode.get(name).times.push(e.dur);
  }
  let total = 0;
  process.stdout.write('node_us  op  node\n');
  for (const [name, n] of byNode) {
    const us = median(n.times.slice(-repeat));
    total += us;
    process.stdout.write(`${us.toFixed(1).padStart(8)}  ${n.op}  ${name}\n`);
  }
  process.stdout.write(`${total.toFixed(1).padStart(8)}  (sum of node medians)\n`);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-'));
  const session = await ort.InferenceSession.create(o.model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: o.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableProfiling: o.repeat > 0,
    profileFilePrefix: path.join(profileDir, 'ort'),
  });
  const feeds = {};
  o.inputs.forEach((arg, k) => {
    const eq = arg.indexOf('=');
    const named = eq > 0 && session.inputNames.includes(arg.slice(0, eq));
    const name = named ? arg.slice(0, eq) : session.inputNames[k];
    if (name === undefined) fail(`too many --input files: the model has ${session.inputNames.length} inputs`);
    feeds[name] = readNpy(named ? arg.slice(eq + 1) : arg);
  });
  let results = await session.run(feeds);
  for (let r = 0; r < o.warmup + o.repeat; ++r) results = await session.run(feeds);
  o.outputs.forEach((file, k) => writeNpy(file, results[session.outputNames[k]]));
  if (o.outputDir) {
    fs.mkdirSync(o.outputDir, { recursive: true });
    const listed = session.outputNames.map((name, k) => {
      const t = results[name];
      if (!t || !Object.values(DTYPES).some((d) => d[0] === t.type)) {
        return { name, skipped: t ? `type ${t.type}` : 'no tensor' };
      }
      const file = `${k}.npy`;
      writeNpy(path.join(o.outputDir, file), t);
      return { name, file };
    });
    fs.writeFileSync(path.join(o.outputDir, 'outputs.json'), JSON.stringify(listed, null, 1));
  }
  if (o.repeat > 0) {
    session.endProfiling();
    const file = fs.readdirSync(profileDir).map((f) => path.join(profileDir, f))[0];
    const events = JSON.parse(fs.readFileSync(file, 'utf8'));
    const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run')
      .map((e) => e.dur / 1000).slice(-o.repeat);
    fs.rmSync(profileDir, { recursive: true, force: true });
    if (runs.length !== o.repeat) fail(`the profile holds ${runs.length} runs, expected ${o.repeat}`);
    const fmt = (v) => v.toFixed(4);
    process.stdout.write(`latency_ms median=${fmt(median(runs))} min=${fmt(Math.min(...runs))} ` +
      `max=${fmt(Math.max(...runs))} runs=${runs.length}\n`);
    if (o.nodeTimes) printNodeTimes(events, o.repeat);
  }
  await session.release();
}

main().catch((e) => fail(e.message || String(e)));
