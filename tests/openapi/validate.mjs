// validate.mjs - every answer the integration tests recorded (a JSON object
// a line: method, path, status, type, body) checked against doc/openapi.yaml:
// its route and method are in the spec, its status is one the operation
// lists, its content type one that status lists, and a JSON body validates
// against that schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses).
// Exit 0 when all hold, 1 naming each answer that does not.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

const [specPath, recordPath] = process.argv.slice(2);
if (!specPath || !recordPath) {
	console.error('usage: node validate.mjs openapi.yaml answers.jsonl');
	process.exit(2);
}
const spec = YAML.parse(readFileSync(specPath, 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec, 'spec');

const pointer = (parts) => '#/' + parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const deref = (obj, at) => {
	while (obj && obj.$ref) {
		at = obj.$ref.slice(2).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
		obj = at.reduce((o, k) => o[k], spec);
	}
	return [obj, at];
};

// the spec's paths as patterns: {cell} may hold slashes, the others not
const routes = Object.keys(spec.paths).map((p) => {
	const params = (p.match(/\{[^}]+\}/g) || []).length;
	const re = new RegExp('^' + p.replace(/[.]/g, '\\.').replace(/\{cell\}/g, '.+')
		.replace(/\{[^}]+\}/g, '[^/]+') + '$');
	return { path: p, re, params, literal: p.replace(/\{[^}]+\}/g, '').length };
});
function route(method, path) {
	const hits = routes.filter((r) => r.re.test(path) && spec.paths[r.path][method]);
	hits.sort((a, b) => b.literal - a.literal || a.params - b.params);
	return hits[0];
}

const validators = new Map();
const seen = new Map();
const used = new Set();
let checked = 0;
const failures = [];
for (const line of readFileSync(recordPath, 'utf8').split('\n')) {
	if (!line) continue;
	const a = JSON.parse(line);
	const method = a.method.toLowerCase();
	let path = a.path.split('?')[0];
	try { path = decodeURIComponent(path); } catch { /* as it came */ }
	const what = `${a.method} ${a.path} -> ${a.status}`;
	const r = route(method, path);
	if (!r) {
		// a route privd does not have answers 404 or 405 by design, and
		// a request line too long to route 414
		if (a.status === 404 || a.status === 405 || a.status === 414) continue;
		failures.push(`${what}: no route in the spec`);
		continue;
	}
	const op = spec.paths[r.path][method];
	used.add(`${a.method} ${r.path}`);
	const codes = op.responses;
	const key = String(a.status) in codes ? String(a.status) : `${String(a.status)[0]}XX` in codes ?
		`${String(a.status)[0]}XX` : 'default' in codes ? 'default' : null;
	if (key === null) {
		failures.push(`${what}: ${a.method} ${r.path} lists no ${a.status} (${Object.keys(codes).join(', ')})`);
		continue;
	}
	const [resp, at] = deref(codes[key], ['paths', r.path, method, 'responses', key]);
	const type = (a.type || '').split(';')[0].trim();
	if (!resp.content) {
		if (a.body) failures.push(`${what}: the spec says no body, privd sent ${type}`);
		continue;
	}
	if (!(type in resp.content)) {
		failures.push(`${what}: content type ${type || '(none)'} not among ${Object.keys(resp.content).join(', ')}`);
		continue;
	}
	if (type !== 'application/json') {
		checked++;
		continue;
	}
	const ptr = pointer([...at, 'content', type, 'schema']);
	const memo = `${ptr}\n${a.body}`;
	if (seen.has(memo)) {
		checked++;
		continue;
	}
	let body;
	try {
		body = JSON.parse(a.body);
	} catch (e) {
		failures.push(`${what}: not JSON: ${e.message}`);
		continue;
	}
	if (!validators.has(ptr)) validators.set(ptr, ajv.compile({ $ref: 'spec' + ptr }));
	const v = validators.get(ptr);
	checked++;
	seen.set(memo, true);
	if (!v(body))
		failures.push(`${what}: ${ajv.errorsText(v.errors, { dataVar: 'answer' })}\n    ${a.body.slice(0, 300)}`);
}

const ops = [];
for (const [p, item] of Object.entries(spec.paths))
	for (const m of ['get', 'post', 'delete', 'put', 'patch'])
		if (item[m]) ops.push(`${m.toUpperCase()} ${p}`);
const unseen = ops.filter((o) => !used.has(o));
console.log(`openapi: ${checked} answers checked against ${specPath}, ${failures.length} wrong; ` +
	`${ops.length - unseen.length} of ${ops.length} operations seen`);
const shown = new Set();
for (const f of failures) {
	const head = f.split(':')[0] + f.split('\n')[0].replace(/^[^:]*:/, '').replace(/\d+/g, 'N');
	if (shown.has(head)) continue;
	shown.add(head);
	console.log('WRONG ' + f);
}
// every operation answered at least once: a route the tests never reach
// is a route whose description nothing checks (test_contract.c reaches
// those no other test does)
if (unseen.length) console.log('WRONG operations no test reached: ' + unseen.join(', '));
process.exit(failures.length || unseen.length ? 1 : 0);
