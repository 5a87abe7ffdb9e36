// ui.test.mjs - privd's web page in a real headless Chromium (Debian's, driven
// by playwright-core) against a real privd and slapd started by
// tests/integration/ui.sh. Each step asserts what a person sees; console
// errors and Content-Security-Policy violations fail the run; screenshots at
// 375 and 1440 px go to $UI_OUT.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const base = process.env.PRIVD_URL;
const out = process.env.UI_OUT || 'build/ui';
const chargeKey = 'dev-charge-93fa06d2c1';
const topupKey = 'dev-topup-7e3b9c1f05';
const adminKey = 'dev-admin-5be71f0a48';
const passwords = { jdoe: 'jdoe-dev-secret', mwhite: 'hos-dev-secret', vguest: 'vguest-dev-secret' };
assert.ok(base, 'PRIVD_URL is not set');
mkdirSync(out, { recursive: true });

const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const problems = [];
let step = '';

async function newPage(width) {
	const ctx = await browser.newContext({ viewport: { width, height: 900 } });
	const page = await ctx.newPage();

	page.on('console', (m) => {
		// a refused sign-in or a 403 is the page working, not failing: the
		// browser logs the failed fetch itself; anything else counts
		if (m.type() === 'error' && !/status of (401|403)/.test(m.text()))
			problems.push(step + ': console: ' + m.text());
	});
	page.on('pageerror', (e) => problems.push(step + ': page error: ' + e.message));
	await page.addInitScript(() => {
		document.addEventListener('securitypolicyviolation', (e) => {
			console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI);
		});
	});
	return page;
}

async function signIn(page, uid, password) {
	await page.goto(base + '/ui/');
	await page.locator('#uid').fill(uid);
	await page.locator('#password').fill(password);
	await page.locator('#signin-form button[type=submit]').click();
}

// A screenshot, once the page fits its width: nothing wider than the
// viewport but the tables' own scrolling boxes.
async function shot(page, name) {
	const [sw, vw] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);

	assert.ok(sw <= vw, `${name}: the page is ${sw} px wide in a ${vw} px window`);
	await page.screenshot({ path: `${out}/${name}.png`, fullPage: true });
}

async function left(page, quota) {
	return (await page.locator(`.account [data-quota="${quota}"] .left strong`).first().textContent()).trim();
}

async function api(method, path, key, body) {
	const r = await fetch(base + path, {
		method,
		headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' },
		body: body ? JSON.stringify(body) : undefined,
	});
	return { status: r.status, body: await r.json().catch(() => null) };
}

try {
	for (const width of [1440, 375]) {
		const page = await newPage(width);

		// --- the page's headers: a strict policy, no inline script
		step = `headers (${width})`;
		const resp = await page.goto(base + '/ui/');
		const csp = resp.headers()['content-security-policy'] || '';
		assert.match(csp, /script-src 'self'/);
		assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
		assert.equal(await page.locator('script:not([src])').count(), 0, 'an inline script');

		// --- keyboard: the form is reached and sent without a mouse; every control has a label
		step = `keyboard (${width})`;
		await page.locator('#uid').focus();
		await page.keyboard.type('jdoe');
		await page.keyboard.press('Tab');
		assert.equal(await page.evaluate(() => document.activeElement.id), 'password');
		await page.keyboard.type('not-her-password');
		await page.keyboard.press('Enter');
		step = `wrong password (${width})`;
		await page.locator('#signin-error').filter({ hasText: 'wrong password' }).waitFor();
		assert.equal(await page.locator('.account').count(), 0);
		const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select')]
		    .filter((e) => e.labels.length === 0).map((e) => e.id));
		assert.deepEqual(unlabelled, []);

		// --- jdoe: her balance, then a charge through the API and a reload
		step = `jdoe (${width})`;
		await signIn(page, 'jdoe', passwords.jdoe);
		await page.locator('.account [data-quota="print.pages"]').first().waitFor();
		const before = Number(await left(page, 'print.pages'));
		if (width === 1440)
			assert.equal(before, 300, 'jdoe does not see 300 pages left');
		// a money quota reads as money, never as bare cents
		assert.match(await left(page, 'print.balance'), /^\$\d+\.\d\d$/,
		    'print.balance is not shown as money');
		// a top-up makes a paid wallet beside the allowance; the page shows both
		const t = await api('POST', '/v1/accounts/jdoe/quotas/print.balance/topups', topupKey,
		    { request_id: 'ui-topup', amount: 500, reference: 'ui test' });
		assert.ok(t.status === 201 || t.status === 200, 'the top-up failed: ' + t.status);
		await page.reload();
		await page.locator('.account [data-quota="print.balance"] .paid').waitFor();
		assert.match(await page.locator('[data-quota="print.balance"] .paid strong').first()
		    .innerText(), /^\$\d+\.\d\d$/, 'the paid balance is not shown as money');
		await page.locator('table.topups[data-quota="print.balance"] td', { hasText: 'top-up' })
		    .first().waitFor();
		// a voucher redeemed on the page, with her own sign-in
		const vb = await api('POST', '/v1/vouchers', adminKey,
		    { quota: 'print.balance', value: 250, count: 1 });
		assert.equal(vb.status, 201);
		await page.locator('#voucher-code').fill(vb.body.codes[0]);
		await page.locator('form.voucher button').click();
		await page.locator('[data-redeemed="250"]').waitFor();
		// notices off, then on again, by her own choice (once the page has
		// shown the voucher's credit again)
		await page.waitForTimeout(2000);
		await page.locator('#notices').waitFor();
		const wasOn = await page.locator('#notices').isChecked();
		await page.locator('#notices').click();
		await page.locator(`[data-notices="${!wasOn}"]`).waitFor();
		assert.equal((await api('GET', '/v1/accounts/jdoe/preferences', chargeKey)).body.notices,
		    !wasOn, 'the choice did not reach privd');
		await page.locator('#notices').click();
		await page.locator(`[data-notices="${wasOn}"]`).waitFor();
		await page.locator('.account [data-quota="print.balance"] .paid').waitFor();
		const job = `ui-${width}-${Date.now()}`;
		const c = await api('POST', '/v1/accounts/jdoe/quotas/print.pages/charges', chargeKey,
		    { request_id: job, amount: 12, metadata: { printer: 'eng-laser', job } });
		assert.equal(c.status, 201);
		await page.reload();
		await page.locator('.account [data-quota="print.pages"]').first().waitFor();
		assert.equal(Number(await left(page, 'print.pages')), before - 12, 'the reload does not show the charge');
		await page.locator('table.ledger[data-quota="print.pages"] td', { hasText: job }).waitFor();
		assert.ok(await page.locator('.chips li', { hasText: 'eng-laser' }).count() > 0, 'her printers');
		await shot(page, `account-jdoe-${width}`);

		// --- not another account: the page says 403, and the API refuses her token
		step = `jdoe on mwhite (${width})`;
		await page.goto(base + '/ui/#/account/mwhite');
		await page.locator('.card.error[data-status="403"]').waitFor();
		assert.equal(await page.locator('.account').count(), 0);
		const token = await page.evaluate(() => JSON.parse(sessionStorage.getItem('privd')).token);
		assert.equal((await api('GET', '/v1/accounts/mwhite/privileges', token)).status, 403);
		assert.equal((await api('GET', '/v1/cells', token)).status, 403);
		assert.equal((await api('POST', '/v1/accounts/jdoe/quotas/print.pages/charges', token,
		    { request_id: 'by-token', amount: 1 })).status, 403, 'a token must not charge');
		assert.equal((await api('GET', '/v1/accounts/jdoe/privileges', token)).status, 200);
		await page.locator('#signout').click();
		await page.locator('#signin-form').waitFor();

		// --- vguest: why the faculty laser is refused
		step = `vguest (${width})`;
		await signIn(page, 'vguest', passwords.vguest);
		const why = page.locator('.why li[data-printer="eng-laser"]');
		await why.waitFor();
		assert.equal((await why.textContent()).trim(),
		    'eng-laser: visitor@ denies eng-laser, which overrides @engineering');
		await shot(page, `why-not-vguest-${width}`);
		await page.locator('#signout').click();

		// --- mwhite, an administrator: the grid with the demo's cells, an account's explain
		step = `mwhite (${width})`;
		await signIn(page, 'mwhite', passwords.mwhite);
		await page.locator('table.grid').waitFor();
		const grid = await page.locator('table.grid').textContent();
		for (const cell of ['student@engineering/cse', 'visitor@', '@engineering',
		    'staff/academic@engineering', 'student@engineering/cse/courses/year3/comp3421'])
			assert.ok(grid.includes(cell), `the grid lacks ${cell}`);
		assert.ok((await page.locator('ul.tree').first().textContent()).includes('undergrad'));
		assert.ok(await page.locator('.chart li').count() > 0, 'no usage chart');
		await page.locator('select#depth').selectOption('1');
		assert.ok((await page.locator('table.grid').textContent()).includes('student@engineering/cse'),
		    'a cell deeper than the depth is not in its ancestor\'s box');
		await page.locator('select#depth').selectOption('2');
		// a box of the grid opens to its cells, whose members link to their accounts
		const box = page.locator('table.grid td[data-cell="visitor@engineering/cse"] details');
		await box.locator('summary').click();
		await box.locator('a', { hasText: 'vguest' }).click();
		await page.locator('.account[data-account="vguest"]').waitFor();
		await page.goBack();
		await page.locator('table.grid').waitFor();
		await shot(page, `admin-${width}`);
		await page.locator('#find').fill('vguest');
		await page.locator('form.search button').click();
		await page.locator('#x-title').waitFor();
		const explain = await page.locator('.account').textContent();
		assert.ok(explain.includes('printer.access-=eng-laser on visitor@'), 'no explain of vguest');
		assert.ok(explain.includes('outweighed'));
		await shot(page, `admin-explain-vguest-${width}`);
		await page.context().close();
	}
	step = 'end';
	assert.deepEqual(problems, [], 'console errors or CSP violations');
	console.log(`ui: jdoe saw 300 then 288 left, was refused mwhite (403 page and API), a token cannot charge; ` +
	    `vguest saw why eng-laser is refused; mwhite saw the trees, the grid and explain; ` +
	    `wrong password refused; no console errors or CSP violations; screenshots in ${out}`);
} catch (e) {
	console.error(`ui: failed at ${step}: ${e.message}`);
	if (problems.length)
		console.error(problems.join('\n'));
	process.exitCode = 1;
} finally {
	await browser.close();
}
