/*
 * app.js - privd's web page: a person's balance, ledger, printers and why
 * not; for administrators the two trees, the cross-product grid, account
 * search with explain and usage by organisation. It only reads, through
 * the same REST API as everything else, with the token privd gives at
 * sign-in (sessionStorage, gone with the tab). Every text from privd goes
 * into the page as text, never as markup.
 */
'use strict';

(function () {
	const view = document.getElementById('view');
	let session = null;	/* {token, uid, admin, expires} */

	/* h('p', {class: 'x'}, 'text', child...): an element; strings become text */
	function h(tag, attrs, ...kids) {
		const e = document.createElement(tag);

		for (const [k, v] of Object.entries(attrs || {})) {
			if (v === null || v === undefined || v === false)
				continue;
			if (k === 'class')
				e.className = v;
			else if (k.startsWith('on'))
				e.addEventListener(k.slice(2), v);
			else
				e.setAttribute(k, v === true ? '' : String(v));
		}
		for (const k of kids.flat(Infinity)) {
			if (k === null || k === undefined || k === false)
				continue;
			e.append(k instanceof Node ? k : document.createTextNode(String(k)));
		}
		return e;
	}

	function show(...nodes) {
		view.replaceChildren(...nodes);
	}

	class ApiError extends Error {
		constructor(status, body) {
			super(body && body.message ? body.message : 'privd answered ' + status);
			this.status = status;
			this.code = body && body.error;
		}
	}

	async function api(path) {
		const r = await fetch(path, {
			headers: { Authorization: 'Bearer ' + session.token },
			cache: 'no-store',
		});
		const body = await r.json().catch(() => null);

		if (r.status === 401) {
			signOut('Your sign-in has ended: sign in again.');
			throw new ApiError(401, body);
		}
		if (!r.ok)
			throw new ApiError(r.status, body);
		return body;
	}

	const enc = encodeURIComponent;

	/* A write the page itself makes: redeeming a voucher (the one a sign-in may). */
	async function post(path, body) {
		const r = await fetch(path, {
			method: 'POST',
			headers: { Authorization: 'Bearer ' + session.token,
			    'Content-Type': 'application/json' },
			body: JSON.stringify(body),
		});
		const b = await r.json().catch(() => null);

		if (r.status === 401) {
			signOut('Your sign-in has ended: sign in again.');
			throw new ApiError(401, b);
		}
		if (!r.ok)
			throw new ApiError(r.status, b);
		return b;
	}

	/* A voucher's code into the account's paid balance; then the page again. */
	function voucherCard(uid) {
		const out = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite' });
		const form = h('form', { class: 'voucher', onsubmit: async (ev) => {
			ev.preventDefault();
			const code = document.getElementById('voucher-code').value.trim();

			if (!code)
				return;
			out.textContent = 'Redeeming…';
			try {
				const v = await post('/v1/accounts/' + enc(uid) + '/vouchers', { code: code });

				out.textContent = (v.replayed ? 'Already redeemed: ' : 'Redeemed: ') +
				    units(v.value, v.currency) + ' added to your paid ' + v.quota + ' balance.';
				out.setAttribute('data-redeemed', v.value);
				setTimeout(() => accountPage(uid), 1500);
			} catch (e) {
				out.textContent = e.message;
				out.setAttribute('data-error', e.status || '');
			}
		} }, h('label', { for: 'voucher-code' }, 'Voucher code'),
		    h('input', { id: 'voucher-code', name: 'code', autocomplete: 'off',
			spellcheck: 'false', placeholder: 'XXXX-XXXX-XXXX-XXXX' }),
		    h('button', { type: 'submit' }, 'Redeem'));

		return h('section', { class: 'card', 'aria-labelledby': 'v-title' },
		    h('h2', { id: 'v-title' }, 'Redeem a voucher'), form, out);
	}

	/* Whether privd emails this person when their balance runs low. */
	async function noticeToggle(uid, card) {
		const path = '/v1/accounts/' + enc(uid) + '/preferences';
		let pref;

		try {
			pref = await api(path);
		} catch (e) {
			return;
		}
		const out = h('span', { class: 'muted', role: 'status', 'aria-live': 'polite' });
		const box = h('input', { type: 'checkbox', id: 'notices', checked: pref.notices,
		    onchange: async () => {
			try {
				const p = await post(path, { notices: box.checked });

				box.checked = p.notices;
				out.textContent = p.notices ? ' On.' : ' Off.';
				out.setAttribute('data-notices', String(p.notices));
			} catch (e) {
				out.textContent = ' ' + e.message;
			}
		} });

		card.append(h('p', { class: 'notices' }, box,
		    h('label', { for: 'notices' }, ' Email me when my balance runs low'), out),
		    pref.notices_configured ? null : h('p', { class: 'muted' },
			'(This site sends no emails yet; your choice is kept for when it does.)'));
	}

	/* --- sign-in */

	function restore() {
		try {
			const s = JSON.parse(sessionStorage.getItem('privd') || 'null');

			if (s && s.expires * 1000 > Date.now())
				session = s;
		} catch (e) {
			session = null;
		}
	}

	function signOut(why) {
		session = null;
		sessionStorage.removeItem('privd');
		route(why);
	}

	async function signIn(ev) {
		ev.preventDefault();
		const uid = document.getElementById('uid').value.trim();
		const pw = document.getElementById('password');
		const err = document.getElementById('signin-error');

		err.textContent = '';
		if (!uid || !pw.value) {
			err.textContent = 'Give your user name and password.';
			return;
		}
		const r = await fetch('/v1/tokens', {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ uid: uid, password: pw.value }),
		});
		const body = await r.json().catch(() => ({}));

		pw.value = '';
		if (!r.ok) {
			err.textContent = r.status === 401 ? 'Unknown user name or wrong password.' :
			    (body.message || 'Sign-in failed (' + r.status + ').');
			return;
		}
		session = { token: body.token, uid: body.uid, admin: body.admin, expires: body.expires };
		sessionStorage.setItem('privd', JSON.stringify(session));
		location.hash = body.admin ? '#/admin' : '#/';
		route();
	}

	/* --- shared pieces */

	function errorCard(e) {
		const msg = e.status === 403 ? 'You may not see this (403): ' + e.message :
		    e.status === 404 ? 'Not found (404): ' + e.message : e.message;

		return h('div', { class: 'card error', role: 'alert', 'data-status': e.status || '' }, msg);
	}

	/* An amount as people read it: money ("$12.40") for a quota with a
	 * currency (privd keeps cents), else the number of pages. */
	function units(n, currency) {
		if (!currency || typeof n !== 'number')
			return n;
		const f = new Intl.NumberFormat(undefined, { style: 'currency', currency: currency,
		    currencyDisplay: 'narrowSymbol' });

		return f.format(n / Math.pow(10, f.resolvedOptions().maximumFractionDigits));
	}

	/* A bar of a quota: used (held shown apart) against limit + credit. */
	function quotaBar(name, q) {
		const u = (n) => units(n, q.currency);
		const total = (q.limit || 0) + (q.credit || 0);
		const used = Math.max(0, (q.used || 0) - (q.held || 0));
		const pct = (n) => total > 0 ? Math.min(100, 100 * n / total) : 0;

		return h('div', { class: 'quota', 'data-quota': name },
		    h('div', { class: 'quota-head' },
			h('span', { class: 'quota-name' }, name),
			h('span', { class: 'left', 'data-remaining': q.remaining },
			    h('strong', {}, u(q.remaining)), ' left of ', u(total),
			    q.period ? ' in ' + q.period : '')),
		    h('div', { class: 'bar', role: 'img',
			'aria-label': name + ': ' + u(q.used) + ' used' + (q.held ? ' (' + u(q.held) +
			' held)' : '') + ', ' + u(q.remaining) + ' left of ' + u(total) },
			h('span', { class: 'used', 'data-w': pct(used) }),
			h('span', { class: 'held', 'data-w': pct(q.held || 0) })),
		    h('p', { class: 'quota-foot' }, u(q.used) + ' used', q.held ? ', ' + u(q.held) +
			' held' : '', ', limit ' + u(q.limit), q.credit ? ', credit ' + u(q.credit) : ''),
		    q.paid ? h('p', { class: 'paid', 'data-paid': q.paid.remaining },
			'Paid balance: ', h('strong', {}, u(q.paid.remaining)), ' left of ',
			u(q.paid.topped_up), ' topped up (kept from term to term, used after the ' +
			'allowance); ', h('strong', { 'data-total': q.total_remaining },
			u(q.total_remaining)), ' in all') : null);
	}

	/* Widths through the CSSOM: the policy allows no inline style attributes. */
	function sizeBars(root) {
		for (const s of root.querySelectorAll('[data-w]'))
			s.style.width = s.getAttribute('data-w') + '%';
	}

	function list(items, empty) {
		if (!items || items.length === 0)
			return h('p', { class: 'muted' }, empty);
		return h('ul', { class: 'chips' }, items.map((x) => h('li', {}, x)));
	}

	/*
	 * Why a set element is refused, in words, from the explain answer:
	 * "visitor@ denies eng-laser, which overrides @engineering".
	 */
	function whyNot(exp) {
		const by = {};

		for (const s of exp.sources || []) {
			const m = /^(.*?)([+-])=(.*)$/.exec(s.grant || '');

			if (!m)
				continue;
			(by[m[3]] = by[m[3]] || []).push({ op: m[2], cell: s.cell, result: s.result });
		}
		const out = [];
		for (const [elem, ss] of Object.entries(by)) {
			if ((exp.value || []).includes(elem))
				continue;
			const deny = ss.filter((s) => s.op === '-' && s.result === 'applied');
			const lost = ss.filter((s) => s.op === '+');
			let text;

			if (deny.length > 0) {
				text = deny.map((d) => d.cell).join(' and ') + ' denies ' + elem;
				if (lost.length > 0)
					text += ', which overrides ' + lost.map((l) => l.cell).join(' and ');
			} else
				text = elem + ' is granted only on cells that do not cover your memberships';
			out.push({ elem: elem, text: text });
		}
		return out;
	}

	/* --- an account: balance, ledger, printers, why not, pools */

	/* A paid wallet's history: top-ups, reversals, and what was drawn on it. */
	async function topupTable(uid, quota) {
		const l = await api('/v1/accounts/' + enc(uid) + '/quotas/' + enc(quota) +
		    '/ledger?wallet=paid&limit=20');
		const rows = (l.entries || []).map((e) => h('tr', {},
		    h('td', {}, (e.time || '').replace('T', ' ').slice(0, 19)),
		    h('td', {}, e.kind === 'topup' ? 'top-up' : e.kind),
		    h('td', { class: 'num' }, units(e.amount, l.currency)),
		    h('td', {}, (e.metadata && (e.metadata.reference || e.metadata.reason)) ||
			e.request_id)));

		return h('div', { class: 'table-wrap' },
		    h('table', { class: 'topups', 'data-quota': quota },
			h('caption', {}, quota + ': paid balance, ' + l.total + ' entries, newest first'),
			h('thead', {}, h('tr', {}, ['Time (UTC)', 'Kind', 'Amount', 'Reference'].map((t) =>
			    h('th', { scope: 'col' }, t)))),
			h('tbody', {}, rows)));
	}

	async function ledgerTable(uid, quota) {
		const l = await api('/v1/accounts/' + enc(uid) + '/quotas/' + enc(quota) + '/ledger?limit=20');
		const rows = (l.entries || []).map((e) => {
			const m = e.metadata || {};

			return h('tr', {},
			    h('td', {}, m.job || e.request_id),
			    h('td', {}, m.queue || m.printer || ''),
			    h('td', { class: 'num' }, units(e.amount, l.currency)),
			    h('td', {}, e.kind),
			    h('td', {}, (e.time || '').replace('T', ' ').slice(0, 19)),
			    h('td', { class: 'num' }, e.refunded || (e.charge_id ? 'of ' + e.charge_id : '')));
		});

		return h('div', { class: 'table-wrap' },
		    h('table', { class: 'ledger', 'data-quota': quota },
			h('caption', {}, quota + ' in ' + l.period + ': ' + l.total + ' entries, newest first'),
			h('thead', {}, h('tr', {}, ['Job', 'Printer', l.currency ? 'Amount' : 'Pages', 'Kind', 'Time (UTC)',
			    'Refunded'].map((t) => h('th', { scope: 'col' }, t)))),
			h('tbody', {}, rows.length ? rows :
			    h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'Nothing yet this period.')))));
	}

	async function accountPage(uid) {
		show(h('p', { class: 'muted' }, 'Loading ' + uid + '…'));
		let p, pools;

		try {
			p = await api('/v1/accounts/' + enc(uid) + '/privileges');
			pools = await api('/v1/accounts/' + enc(uid) + '/pools');
		} catch (e) {
			show(h('h1', {}, uid), errorCard(e));
			return;
		}
		const privs = p.privileges || {};
		const quotas = Object.entries(privs).filter(([, v]) => v.type === 'quota');
		const sets = Object.entries(privs).filter(([, v]) => v.type === 'set');
		const flags = Object.entries(privs).filter(([, v]) => v.type !== 'set' && v.type !== 'quota');
		const page = h('div', { class: 'account', 'data-account': p.account },
		    h('h1', {}, p.account, p.stale ? h('span', { class: 'stale' }, ' (stale: privd cannot reach its directory)') : ''),
		    h('p', { class: 'muted' }, 'Member of ', (p.memberships || []).join(', ') || 'nothing'));

		page.append(h('section', { class: 'card', 'aria-labelledby': 'q-title' },
		    h('h2', { id: 'q-title' }, 'Balance'),
		    quotas.map(([k, v]) => quotaBar(k, v))));
		if (session.uid === p.account) {
			const vc = voucherCard(p.account);

			page.append(vc);
			await noticeToggle(p.account, vc);
		}

		const access = privs['printer.access'];
		const why = h('section', { class: 'card', 'aria-labelledby': 'p-title' },
		    h('h2', { id: 'p-title' }, 'Printers and login hosts'),
		    h('h3', {}, 'Printers I may use'), list(access && access.value, 'None.'),
		    privs['login.hosts'] ? [h('h3', {}, 'Login hosts'), list(privs['login.hosts'].value, 'None.')] : null,
		    flags.length ? h('dl', { class: 'flags' }, flags.map(([k, v]) =>
			[h('dt', {}, k), h('dd', {}, String(v.value) + (v.open !== undefined ? ' (' + v.open + ' open)' : ''))])) : null);
		page.append(why);
		if (access) {
			try {
				const exp = await api('/v1/accounts/' + enc(uid) + '/privileges/printer.access?explain=1');
				const nots = whyNot(exp);

				why.append(h('h3', {}, 'Printers I may not use, and why'),
				    nots.length ? h('ul', { class: 'why' }, nots.map((n) =>
					h('li', { 'data-printer': n.elem }, h('strong', {}, n.elem), ': ', n.text))) :
					h('p', { class: 'muted' }, 'No printer is denied to you.'));
			} catch (e) {
				why.append(errorCard(e));
			}
		}
		for (const [k] of sets.filter(([k]) => k !== 'printer.access' && k !== 'login.hosts'))
			why.append(h('h3', {}, k), list(privs[k].value, 'None.'));

		const poolCard = h('section', { class: 'card', 'aria-labelledby': 'pool-title' },
		    h('h2', { id: 'pool-title' }, 'Shared budgets I may draw on'));
		if ((pools.pools || []).length === 0)
			poolCard.append(h('p', { class: 'muted' }, 'None.'));
		for (const pl of pools.pools || [])
			poolCard.append(h('div', { class: 'pool' }, h('h3', {}, pl.cell),
			    h('p', { class: 'muted' }, 'through ', pl.via),
			    Object.entries(pl.quotas || {}).map(([k, v]) => quotaBar(k, v))));
		page.append(poolCard);

		const led = h('section', { class: 'card', 'aria-labelledby': 'l-title' },
		    h('h2', { id: 'l-title' }, 'Ledger'));
		page.append(led);
		for (const [k, v] of quotas) {
			try {
				led.append(await ledgerTable(uid, k));
				if (v.paid)
					led.append(await topupTable(uid, k));
			} catch (e) {
				led.append(errorCard(e));
			}
		}
		if (session.admin)
			page.append(await explainCard(uid));
		show(page);
		sizeBars(page);
	}

	async function explainCard(uid) {
		const card = h('section', { class: 'card', 'aria-labelledby': 'x-title' },
		    h('h2', { id: 'x-title' }, 'Explain'));
		try {
			const x = await api('/v1/accounts/' + enc(uid) + '/privileges?explain=1');

			for (const [k, v] of Object.entries(x.privileges || {})) {
				const val = Array.isArray(v.value) ? v.value.join(', ') || 'none' :
				    v.type === 'quota' ? v.limit : String(v.value);

				card.append(h('h3', {}, k, ' = ', val),
				    (v.sources || []).length ? h('ul', { class: 'sources' }, v.sources.map((s) =>
					h('li', { class: 'src-' + s.result }, h('span', { class: 'result' }, s.result), ' ',
					    s.grant, ' on ', s.cell, ' (membership ', s.membership, ')',
					    s.overridden_by ? ', overridden by ' + s.overridden_by : ''))) :
					h('p', { class: 'muted' }, 'No grant applies: the default.'));
			}
		} catch (e) {
			card.append(errorCard(e));
		}
		return card;
	}

	/* --- administration: trees, grid, search, usage */

	function treeList(node) {
		const kids = node.children || [];
		const label = h('span', {}, h('span', { class: 'node' }, node.name || '(all)'),
		    h('span', { class: 'counts' }, ' ', node.members, ' members, ', node.grants, ' grants'));

		return h('li', {}, label, kids.length ? h('ul', {}, kids.map(treeList)) : null);
	}

	const depthOf = (p) => p === '' ? 0 : p.split('/').length;
	const cut = (p, d) => p.split('/').slice(0, d).join('/');

	function grid(cells, reasons, orgs, depth) {
		const rs = [''].concat(reasons.filter((r) => depthOf(r) <= depth).sort());
		const os = [''].concat(orgs.filter((o) => depthOf(o) <= depth).sort());
		const box = {};

		/* a cell deeper than the depth is shown in its ancestor's box */
		for (const c of cells) {
			const key = cut(c.reason, depth) + '@' + cut(c.organisation, depth);

			(box[key] = box[key] || []).push(c);
		}
		const head = h('tr', {}, h('th', { scope: 'col' }, 'reason \\ organisation'),
		    os.map((o) => h('th', { scope: 'col' }, o || '(all)')));
		const rows = rs.map((r) => h('tr', {}, h('th', { scope: 'row' }, r || '(all)'),
		    os.map((o) => {
			const here = box[r + '@' + o] || [];

			if (here.length === 0)
				return h('td', { class: 'empty' });
			const members = here.reduce((n, c) => n + c.members, 0);
			const grants = here.reduce((n, c) => n + c.grants.length + c.pools.length, 0);

			return h('td', { 'data-cell': r + '@' + o },
			    h('details', {},
				h('summary', {}, grants + ' grants, ' + members + ' members'),
				h('ul', {}, here.map((c) => h('li', {},
				    h('strong', {}, c.cell), ': ',
				    c.grants.concat(c.pools.map((p) => 'pool ' + p)).join(', ') || 'no grants',
				    c.members ? [' · ' + c.members + ' members: ',
					(c.member_uids || []).map((u, i) => [i ? ', ' : '',
					    h('a', { href: '#/account/' + enc(u) }, u)]),
					c.members > (c.member_uids || []).length ? ', …' : ''] : '')))));
		    })));

		return h('div', { class: 'table-wrap' },
		    h('table', { class: 'grid' }, h('caption', {}, 'Cells by reason (down) and organisation (across), to depth ' + depth),
			h('thead', {}, head), h('tbody', {}, rows)));
	}

	async function adminPage() {
		if (!session.admin) {
			show(errorCard(new ApiError(403, { message: 'the administration pages are for administrators' })));
			return;
		}
		show(h('p', { class: 'muted' }, 'Loading…'));
		let rt, ot, cells, usage = null;

		try {
			[rt, ot, cells] = await Promise.all([api('/v1/tree/reasons'),
			    api('/v1/tree/organisations'), api('/v1/cells?members=10')]);
		} catch (e) {
			show(h('h1', {}, 'Administration'), errorCard(e));
			return;
		}
		try {
			usage = await api('/v1/reports/usage?privilege=print.pages&by=organisation&depth=2');
		} catch (e) {
			usage = e;
		}
		const gridBox = h('div', {});
		const depthSel = h('select', { id: 'depth', onchange: () => {
			gridBox.replaceChildren(grid(cells.cells, cells.reasons, cells.organisations, +depthSel.value));
		} }, [1, 2, 3, 4].map((d) => h('option', { value: d, selected: d === 2 }, String(d))));
		gridBox.append(grid(cells.cells, cells.reasons, cells.organisations, 2));

		const search = h('form', { class: 'search', role: 'search', onsubmit: (ev) => {
			ev.preventDefault();
			const u = document.getElementById('find').value.trim();

			if (u)
				location.hash = '#/account/' + enc(u);
		} }, h('label', { for: 'find' }, 'Account'),
		    h('input', { id: 'find', name: 'find', autocomplete: 'off', spellcheck: 'false' }),
		    h('button', { type: 'submit' }, 'Show privileges and explain'));

		const page = h('div', { class: 'admin' },
		    h('h1', {}, 'Administration'),
		    h('section', { class: 'card', 'aria-labelledby': 's-title' },
			h('h2', { id: 's-title' }, 'Find an account'), search),
		    h('section', { class: 'card', 'aria-labelledby': 't-title' },
			h('h2', { id: 't-title' }, 'The two trees'),
			h('div', { class: 'trees' },
			    h('div', {}, h('h3', {}, 'Reasons'), h('ul', { class: 'tree' }, treeList(rt.root || rt))),
			    h('div', {}, h('h3', {}, 'Organisations'), h('ul', { class: 'tree' }, treeList(ot.root || ot))))),
		    h('section', { class: 'card', 'aria-labelledby': 'g-title' },
			h('h2', { id: 'g-title' }, 'The cross product'),
			h('p', {}, h('label', { for: 'depth' }, 'Depth '), depthSel),
			gridBox),
		    h('section', { class: 'card', 'aria-labelledby': 'u-title' },
			h('h2', { id: 'u-title' }, 'Usage of print.pages by organisation'),
			usage instanceof Error ? errorCard(usage) : usageChart(usage)));
		show(page);
		sizeBars(page);
	}

	function usageChart(u) {
		const rows = (u.rows || []);
		const max = rows.reduce((m, r) => Math.max(m, r.used), 0) || 1;

		if (rows.length === 0)
			return h('p', { class: 'muted' }, 'Nothing used in ' + u.period + '.');
		return h('div', { class: 'chart' }, h('p', { class: 'muted' }, 'Period ' + u.period),
		    h('ul', {}, rows.map((r) => h('li', {},
			h('span', { class: 'label' }, r.path || '(all)'),
			h('span', { class: 'bar', role: 'img', 'aria-label': (r.path || 'all') + ': ' + r.used + ' pages' },
			    h('span', { class: 'used', 'data-w': 100 * r.used / max })),
			h('span', { class: 'num' }, r.used)))));
	}

	/* --- routing */

	function route(message) {
		const signin = document.getElementById('signin');
		const nav = document.getElementById('nav');

		if (session === null) {
			signin.hidden = false;
			nav.hidden = true;
			document.getElementById('signout').hidden = true;
			document.getElementById('who').textContent = '';
			document.getElementById('signin-error').textContent = message || '';
			show();
			document.getElementById('uid').focus();
			return;
		}
		signin.hidden = true;
		nav.hidden = false;
		document.getElementById('nav-admin').hidden = !session.admin;
		document.getElementById('signout').hidden = false;
		document.getElementById('who').textContent = session.uid + (session.admin ? ' (administrator)' : '');
		const m = /^#\/account\/(.+)$/.exec(location.hash);

		if (location.hash === '#/admin')
			adminPage();
		else
			accountPage(m ? decodeURIComponent(m[1]) : session.uid);
		document.getElementById('main').focus({ preventScroll: true });
	}

	document.getElementById('signin-form').addEventListener('submit', signIn);
	document.getElementById('signout').addEventListener('click', () => signOut());
	window.addEventListener('hashchange', () => route());
	restore();
	route();
}());
