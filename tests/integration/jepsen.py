#!/usr/bin/env python3
# jepsen.py - the client and the checker of jepsen.sh (see there).
#
#   jepsen.py vouchers OUT URL N
#       makes N vouchers of 20 cents (admin key) and writes their codes to OUT.
#   jepsen.py run OUT URL1 URL2 ROUND ACCOUNTS STEPS VOUCHERS
#       every verb that moves a counter, from two workers an account through
#       both privd: one-page charges (print.pages), charges of print.balance
#       that spill from the allowance into the paid wallet (splits), refunds
#       (and pairs of refunds of one charge at once, one through each privd),
#       holds then a commit or a release, credits, top-ups and reversals,
#       sessions opened and closed, and each voucher of VOUCHERS redeemed by
#       two accounts at the same moment. An id answered 503 (or not at all)
#       is sent again, the same id, through the other privd, until it gets a
#       final answer. OUT: one JSON line per operation.
#   jepsen.py check OUT LIMIT VOUCHERS LDAPURL1 LDAPURL2 ACCOUNTS...
#       reads both providers and prints the round's counts as one JSON line:
#         lost        answered operations whose ledger entry (or session, or
#                     voucher claim) a provider lacks
#         double      ledger entries (id and kind) a provider holds twice
#         counter     usage entries whose counters differ from their ledger
#         over        pages over the limit; cents of a wallet over its bound
#         created     cents an account holds beyond what its answers gave it,
#                     summed over providers (short: the other way)
#         voucher     vouchers paid to more than one account, or twice
#         diverged    accounts (and vouchers) the providers hold differently
#         unanswered  operations that got no final answer within 120 s
import hashlib
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.parse

KEYS = {"charge": "dev-charge-93fa06d2c1", "admin": "dev-admin-5be71f0a48",
        "topup": "dev-topup-7e3b9c1f05"}
BASE = "ou=privileges,dc=example,dc=edu"
PAGES, MONEY, SESS = "print.pages", "print.balance", "login.max_sessions"
RETRY = (0, 429, 500, 502, 503, 504)


def call(url, method, path, body, key, timeout=10):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        c.request(method, path, json.dumps(body) if body is not None else None,
                  {"Authorization": "Bearer " + KEYS[key],
                   "Content-Type": "application/json"})
        r = c.getresponse()
        text = r.read()
        try:
            return r.status, json.loads(text) if text else {}
        except ValueError:
            return r.status, {}
    except (OSError, http.client.HTTPException):
        return 0, {}
    finally:
        c.close()


class Run:
    def __init__(self, urls, deadline):
        self.urls, self.deadline = urls, deadline
        self.lock = threading.Lock()
        self.out = []

    def op(self, kind, acct, rid, method, path, body, key, via, **extra):
        """Sends until a final answer (the same id, alternating privd)."""
        status, ans, tries = 0, {}, []
        while time.monotonic() < self.deadline:
            status, ans = call(self.urls[via], method, path, body, key)
            tries.append(status)
            if status not in RETRY:
                break
            via = 1 - via
            time.sleep(0.05 + random.random() * 0.1)
        rec = {"op": kind, "acct": acct, "id": rid, "status": status, "ans": ans,
               "tries": len(tries)}
        rec.update(extra)
        with self.lock:
            self.out.append(rec)
        return status, ans


def q(acct, quota, rest=""):
    return "/v1/accounts/%s/quotas/%s%s" % (acct, quota, rest)


def worker(run, rnd, acct, w, steps):
    rng = random.Random("%s-%s-%d" % (rnd, acct, w))
    charges = []		# [id, charged, refunded asked]
    topups = []
    for s in range(steps):
        rid = "%s-%s-%d-%d" % (rnd, acct, w, s)
        via = rng.randrange(2)
        x = rng.random()
        if x < 0.25:
            run.op("page", acct, rid, "POST", q(acct, PAGES, "/charges"),
                   {"request_id": rid, "amount": 1}, "charge", via)
        elif x < 0.45:
            st, a = run.op("charge", acct, rid, "POST", q(acct, MONEY, "/charges"),
                           {"request_id": rid, "amount": rng.randint(5, 40)}, "charge", via)
            if st in (200, 201) and a.get("charged", 0) > 0:
                charges.append([rid, a["charged"], 0])
        elif x < 0.55 and charges:
            c = rng.choice(charges)
            left = c[1] - c[2]
            if left <= 0:
                continue
            amount = rng.randint(1, left)
            c[2] += amount
            run.op("refund", acct, rid, "POST", q(acct, MONEY, "/refunds"),
                   {"request_id": rid, "charge_id": c[0], "amount": amount}, "charge", via,
                   ref=c[0])
        elif x < 0.60:
            # two refunds of all of one charge at once, one through each privd
            st, a = run.op("charge", acct, rid, "POST", q(acct, MONEY, "/charges"),
                           {"request_id": rid, "amount": 20}, "charge", via)
            if st not in (200, 201) or a.get("charged", 0) <= 0:
                continue
            ts = [threading.Thread(target=run.op, args=(
                "refund", acct, "%s/r%d" % (rid, k), "POST", q(acct, MONEY, "/refunds"),
                {"request_id": "%s/r%d" % (rid, k), "charge_id": rid,
                 "amount": a["charged"]}, "charge", k), kwargs={"ref": rid})
                for k in (0, 1)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        elif x < 0.72:
            st, a = run.op("hold", acct, rid, "POST", q(acct, MONEY, "/holds"),
                           {"request_id": rid, "amount": rng.randint(5, 30), "ttl_s": 600},
                           "charge", via)
            if st not in (200, 201) or a.get("state", "open") != "open":
                continue
            if rng.random() < 0.6:
                run.op("commit", acct, rid, "POST", q(acct, MONEY, "/holds/%s/commit" % rid),
                       {"amount": rng.randint(0, a["amount"])}, "charge", 1 - via)
            else:
                run.op("release", acct, rid, "DELETE", q(acct, MONEY, "/holds/%s" % rid),
                       None, "charge", 1 - via)
        elif x < 0.77:
            run.op("credit", acct, rid, "POST", q(acct, MONEY, "/credits"),
                   {"request_id": rid, "amount": 10, "reason": "jepsen"}, "admin", via)
        elif x < 0.88:
            st, a = run.op("topup", acct, rid, "POST", q(acct, MONEY, "/topups"),
                           {"request_id": rid, "amount": 40, "reference": "jepsen"},
                           "topup", via)
            if st in (200, 201):
                topups.append(rid)
            if topups and rng.random() < 0.25:
                t = topups.pop(rng.randrange(len(topups)))
                run.op("reversal", acct, t + "/reversal", "POST",
                       q(acct, MONEY, "/topups/%s/reversal" % t), {"reason": "jepsen"},
                       "admin", 1 - via)
        else:
            st, a = run.op("open", acct, rid, "POST", "/v1/accounts/%s/sessions" % acct,
                           {"request_id": rid, "host": "lab%d" % w, "privilege": SESS},
                           "charge", via)
            if st not in (200, 201):
                continue
            sid = a.get("session_id", rid)
            run.op("close", acct, sid, "DELETE",
                   "/v1/accounts/%s/sessions/%s?privilege=%s" % (acct, sid, SESS), None,
                   "charge", 1 - via)


def redeem(run, code, accts):
    ts = [threading.Thread(target=run.op, args=(
        "voucher", a, code, "POST", "/v1/accounts/%s/vouchers" % a, {"code": code},
        "topup", k)) for k, a in enumerate(accts)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def run_round(out, urls, rnd, accounts, steps, vfile):
    run = Run(urls, time.monotonic() + 120)
    codes = [c for c in open(vfile).read().split() if c]
    ts = []
    for k, code in enumerate(codes):
        pair = [accounts[k % len(accounts)], accounts[(k + 1) % len(accounts)]]
        ts.append(threading.Thread(target=redeem, args=(run, code, pair)))
    for a in accounts:
        for w in (0, 1):
            ts.append(threading.Thread(target=worker, args=(run, rnd, a, w, steps)))
    random.shuffle(ts)
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    with open(out, "w") as f:
        for r in run.out:
            f.write(json.dumps(r, sort_keys=True) + "\n")


def vouchers(out, url, n):
    st, a = call(url, "POST", "/v1/vouchers", {"quota": MONEY, "value": 20, "count": n},
                 "admin")
    if st != 201:
        raise SystemExit("creating vouchers: %d %s" % (st, a))
    with open(out, "w") as f:
        f.write("\n".join(a["codes"]) + "\n")


def ldif(url, base, scope="sub", filt="(objectClass=*)"):
    """The entries under base as a list of dicts of value lists."""
    p = subprocess.run(["ldapsearch", "-x", "-LLL", "-o", "ldif-wrap=no", "-H", url,
                        "-D", "cn=admin,dc=example,dc=edu", "-w", "secret", "-b", base,
                        "-s", scope, filt, "objectClass", "privUsed", "privHeld",
                        "privCredit", "privSegments", "privEntry", "privRequest",
                        "privRefund", "privHold", "privSession", "privRedeemed"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 32):
        raise SystemExit("ldapsearch %s: %s" % (url, p.stderr.strip()))
    entries, cur = [], None
    for line in p.stdout.splitlines():
        if not line:
            cur = None
            continue
        k, _, v = line.partition(": ")
        if k == "dn":
            cur = {"dn": [v]}
            entries.append(cur)
        elif cur is not None:
            cur.setdefault(k.rstrip(":"), []).append(v)
    return entries


def num(e, attr):
    return int(e.get(attr, ["0"])[0])


class View:
    """One provider's entries of one account."""

    def __init__(self, url, acct):
        self.url = url
        self.entries = ldif(url, "uid=%s,ou=usage,%s" % (acct, BASE))
        self.usage, self.ledger, self.sessions = {}, {}, None
        segs = {}
        for e in self.entries:
            oc = e.get("objectClass", [])
            dn = e["dn"][0]
            if "privUsage" in oc:
                self.usage[dn] = e
            elif "privSessions" in oc:
                self.sessions = e
            elif "privLedgerSegment" in oc:
                segs[dn] = e
        for dn, e in self.usage.items():
            vals = list(e.get("privEntry", []))
            # segments numbered above privSegments are a move not yet
            # committed: their entries are still in the window (archive.h)
            for sdn, s in segs.items():
                if sdn.endswith("," + dn) and int(sdn.split(",")[0][3:]) <= num(e, "privSegments"):
                    vals += s.get("privEntry", [])
            self.ledger[dn] = [json.loads(v) for v in vals]

    def has(self, kind, rid):
        for les in self.ledger.values():
            for j in les:
                if j["kind"] == kind and (j["id"] == rid or j["id"].startswith(rid + "@")):
                    return True
        return False

    def balance(self):
        """credit - used over the account's money entries; pages used."""
        money = pages = 0
        for dn, e in self.usage.items():
            if dn.startswith("cn=" + MONEY + "@"):
                money += num(e, "privCredit") - num(e, "privUsed")
            elif dn.startswith("cn=" + PAGES + "@"):
                pages = num(e, "privUsed")
        return money, pages

    def key(self):
        return sorted((e["dn"][0], sorted((k, sorted(v)) for k, v in e.items()))
                      for e in self.entries)


WHERE = {"page": "charge", "charge": "charge", "refund": "refund", "hold": "hold",
         "commit": "commit", "release": "release", "credit": "credit", "topup": "topup",
         "reversal": "reversal"}


def expected_money(ops):
    """What the answers gave each account: credit less use, in cents."""
    got = {}
    for o in ops:
        if o["status"] not in (200, 201):
            continue
        a, k = o["ans"], o["op"]
        d = {"charge": -a.get("charged", 0), "refund": a.get("refunded", 0),
             "commit": -a.get("committed", 0), "credit": a.get("credited", 0),
             "topup": a.get("topped_up", 0), "reversal": -a.get("reversed", 0),
             "voucher": a.get("value", 0)}.get(k, 0)
        got[o["acct"]] = got.get(o["acct"], 0) + d
    return got


def say(counts, what, n, why):
    """Counts n of what; says why on stderr (the round's details)."""
    if n:
        counts[what] += n
        print("jepsen.py: %s %d: %s" % (what, n, why), file=sys.stderr)


def check(out, limit, vfile, urls, accounts):
    # allow mode (ldap.away_allowance N): each privd that cannot reach the
    # home may take N of each quota beyond it (doc/replication.md)
    slack = int(os.environ.get("SLACK", "0"))
    ops = [json.loads(line) for line in open(out) if line.strip()]
    counts = {"answered": 0, "lost": 0, "double": 0, "counter": 0, "diverged": 0,
              "over": 0, "created": 0, "short": 0, "voucher": 0, "unanswered": 0}
    counts["answered"] = sum(1 for o in ops if o["status"] in (200, 201))
    counts["unanswered"] = sum(1 for o in ops if o["status"] in RETRY)
    want = expected_money(ops)
    viewed = {}		# (url, account): its View, read once
    for acct in accounts:
        views = [viewed.setdefault((u, acct), View(u, acct)) for u in urls]
        mine = [o for o in ops if o["acct"] == acct and o["status"] in (200, 201)]
        closed = {o["id"] for o in mine if o["op"] == "close"}
        # a close sent again after a lost answer finds the session gone:
        # 404, and the first one ended it (or it was never open)
        closed |= {o["id"] for o in ops if o["acct"] == acct and o["op"] == "close" and
                   o["status"] == 404 and o["tries"] > 1}
        for v in views:
            for o in mine:
                if o["op"] in WHERE and not v.has(WHERE[o["op"]], o["id"]):
                    say(counts, "lost", 1, "%s %s %s" % (o["op"], o["id"], v.url))
            # sessions: what was opened and never closed is open, the rest gone
            open_ids = set()
            if v.sessions:
                open_ids = {s.split()[0] for s in v.sessions.get("privSession", [])}
                if num(v.sessions, "privUsed") != len(open_ids):
                    say(counts, "counter", 1, "sessions of %s at %s" % (acct, v.url))
                say(counts, "over", max(0, len(open_ids) - 3), "sessions of " + acct)
            for o in mine:
                sid = o["ans"].get("session_id", o["id"])
                if o["op"] == "open" and sid not in closed and sid not in open_ids:
                    say(counts, "lost", 1, "open %s %s" % (sid, v.url))
                if o["op"] == "close" and o["id"] in open_ids:
                    say(counts, "lost", 1, "close %s %s" % (o["id"], v.url))
            for dn, les in v.ledger.items():
                seen = {}
                for j in les:
                    seen[(j["id"], j["kind"])] = seen.get((j["id"], j["kind"]), 0) + 1
                say(counts, "double", sum(1 for n in seen.values() if n > 1), dn)
                e = v.usage[dn]
                charged = sum(j["amount"] for j in les if j["kind"] == "charge")
                if dn.startswith("cn=" + PAGES + "@") and num(e, "privUsed") != charged:
                    say(counts, "counter", 1, "%s at %s" % (dn, v.url))
                if dn.startswith("cn=" + MONEY + "@paid"):
                    topped = sum(j["amount"] for j in les if j["kind"] == "topup")
                    say(counts, "over", max(0, num(e, "privUsed") + num(e, "privHeld") -
                                            topped - slack), "%s at %s" % (dn, v.url))
                elif dn.startswith("cn=" + MONEY + "@"):
                    say(counts, "over", max(0, num(e, "privUsed") + num(e, "privHeld") - 100 -
                                            num(e, "privCredit") - slack), "%s at %s" % (dn, v.url))
            money, pages = v.balance()
            say(counts, "over", max(0, pages - limit - slack), "pages of %s at %s" % (acct, v.url))
            d = money - want.get(acct, 0)
            say(counts, "created" if d > 0 else "short", abs(d),
                "money of %s at %s: %d, the answers say %d" % (acct, v.url, money, want.get(acct, 0)))
        if views[0].key() != views[1].key():
            say(counts, "diverged", 1, acct)
    # vouchers: one claim, one top-up, to the account that was answered
    for code in open(vfile).read().split():
        h = hashlib.sha256(code.replace("-", "").upper().encode()).hexdigest()
        won = [o["acct"] for o in ops if o["op"] == "voucher" and o["id"] == code and
               o["status"] in (200, 201)]
        keys = []
        for u in urls:
            vs = ldif(u, "ou=vouchers,ou=usage," + BASE, "one",
                      "(|(cn=%s)(cn=%s))" % (h, h.upper()))
            claims = [r.split()[0] for e in vs for r in e.get("privRedeemed", [])]
            keys.append(sorted(claims))
            # the top-up's request id: "voucher:" and half the hash (voucher.c)
            paid = [a for a in accounts if viewed[(u, a)].has("topup", "voucher:" + h[:32])]
            if len(claims) > 1 or len(paid) > 1 or len(won) > 1:
                say(counts, "voucher", 1, "%s: claims %s, paid %s, won %s" % (code, claims, paid, won))
            if won and (claims != won[:1] or paid != won[:1]):
                say(counts, "lost", 1, "voucher %s: claims %s, paid %s, won %s" % (code, claims, paid, won))
        if keys[0] != keys[1]:
            say(counts, "diverged", 1, "voucher " + code)
    print(json.dumps(counts, sort_keys=True))


def main():
    if sys.argv[1] == "vouchers":
        vouchers(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "run":
        out, u1, u2, rnd, accts, steps, vfile = sys.argv[2:9]
        run_round(out, [u1, u2], rnd, accts.split(","), int(steps), vfile)
    elif sys.argv[1] == "check":
        out, limit, vfile, l1, l2 = sys.argv[2:7]
        check(out, int(limit), vfile, [l1, l2], sys.argv[7:])
    else:
        raise SystemExit("usage: jepsen.py vouchers|run|check ...")


if __name__ == "__main__":
    main()
