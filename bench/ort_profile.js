#!/usr/bin/env node
// ONNX Runtime's own per-node profile of a model (its session option enableProfiling), for
// bench/layers_vs_ort.sh: runs MODEL on the input_N.pb tensors of DIR (as ../shared/peers/ort --random
// --outputs DIR writes them) WARMUP + RUNS times on THREADS intra-op threads, then prints the path of the
// profile (Chrome trace JSON) ONNX Runtime wrote under PREFIX. Run with NODE_PATH at the peers' node_modules.
//   node bench/ort_profile.js MODEL.onnx DIR THREADS WARMUP RUNS PREFIX
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { onnx } = require('onnx-proto');

const TYPES = { 1: ['float32', Float32Array], 7: ['int64', BigInt64Array], 6: ['int32', Int32Array], 9: ['bool', Uint8Array] };

function readTensor(file) {
  const t = onnx.TensorProto.decode(fs.readFileSync(file));
  const [type, Ctor] = TYPES[t.dataType] || [];
  if (!type || !t.rawData || !t.rawData.length) throw new Error(`${file}: a tensor of type ${t.dataType} without raw data is not handled`);
  const buf = Buffer.from(t.rawData);
  return { name: t.name, tensor: new ort.Tensor(type, new Ctor(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)), t.dims.map(Number)) };
}

async function main() {
  const [model, dir, threads, warmup, runs, prefix] = process.argv.slice(2);
  if (!prefix) throw new Error('usage: ort_profile.js MODEL.onnx DIR THREADS WARMUP RUNS PREFIX');
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, graphOptimizationLevel: 'all', enableProfiling: true, profileFilePrefix: prefix });
  const feeds = {};
  fs.readdirSync(dir).filter(f => /^input_\d+\.pb$/.test(f)).sort((a, b) => parseInt(a.slice(6)) - parseInt(b.slice(6)))
    .forEach((f, i) => { const { name, tensor } = readTensor(path.join(dir, f)); feeds[name || session.inputNames[i]] = tensor; });
  for (let i = 0; i < Number(warmup) + Number(runs); i++) await session.run(feeds);
  session.endProfiling();
  const base = path.basename(prefix);
  const written = fs.readdirSync(path.dirname(prefix)).filter(f => f.startsWith(base) && f.endsWith('.json')).sort();
  if (!written.length) throw new Error(`ONNX Runtime wrote no profile under ${prefix}`);
  console.log(path.join(path.dirname(prefix), written[written.length - 1]));
}
main().catch(e => { console.error(`error: ${e.message}`); process.exit(2); });
