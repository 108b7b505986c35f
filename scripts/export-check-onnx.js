// Runs an exported ONNX model with onnxruntime-node (the export test's
// external check, cmd/peerlearn TestExportExternal) and writes its logits.
//
//   node scripts/export-check-onnx.js MODEL.onnx INPUTS.f32 N C H W LOGITS.f32
//
// INPUTS.f32 holds N*C*H*W little-endian float32 values (NCHW); LOGITS.f32
// receives the N*classes logits, little-endian float32. onnxruntime-node
// comes from ORT_NODE_MODULES (default .tools/onnx/node_modules, where
// `scripts/deps.sh onnx` installs it).
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
	const [model, inputs, n, c, h, w, out] = process.argv.slice(2);
	if (!out) throw new Error('usage: export-check-onnx.js MODEL.onnx INPUTS.f32 N C H W LOGITS.f32');
	const mods = process.env.ORT_NODE_MODULES || path.join(__dirname, '..', '.tools', 'onnx', 'node_modules');
	const ort = require(path.join(mods, 'onnxruntime-node'));
	const dims = [n, c, h, w].map(Number);
	const buf = fs.readFileSync(inputs);
	if (buf.length !== 4 * dims.reduce((a, b) => a * b)) throw new Error(`${inputs}: ${buf.length} bytes, want 4*${dims.join('*')}`);
	const x = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
	const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'disabled' });
	const res = await session.run({ input: new ort.Tensor('float32', x, dims) });
	const logits = res.logits;
	if (!logits || logits.dims.length !== 2 || logits.dims[0] !== dims[0]) throw new Error(`logits dims ${logits && logits.dims}`);
	fs.writeFileSync(out, Buffer.from(logits.data.buffer, logits.data.byteOffset, logits.data.byteLength));
	const pkg = require(path.join(mods, 'onnxruntime-node', 'package.json'));
	console.log(`onnxruntime-node ${pkg.version}: inputs ${session.inputNames} outputs ${session.outputNames} logits ${logits.dims}`);
}
main().catch((e) => { console.error(e); process.exit(1); });
