#!/usr/bin/env python3
# jepsen.py - the client and the checker of jepsen.sh (see there).
#
#   jepsen.py charge OUT URL1 URL2 ROUND ACCOUNTS N WORKERS
#       N one-page charges with unique ids, spread over ACCOUNTS, from WORKERS
#       threads through both privd; an id answered 503 (or not at all) is
#       sent again, the same id, through the other privd, until it gets a
#       final answer. OUT: one line per id: "ID ACCOUNT STATUS".
#   jepsen.py check OUT LIMIT LDAPURL1 LDAPURL2 ACCOUNTS...
#       reads both providers and prints the round's counts as one JSON line:
#       lost, double, counters unequal to their ledger, diverged, overspent.
import http.client
import json
import random
import subprocess
import sys
import threading
import time
import urllib.parse

CHARGE = {"Authorization": "Bearer dev-charge-93fa06d2c1",
          "Content-Type": "application/json"}
FINAL = (200, 201, 409)


def post(url, path, body, timeout):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        c.request("POST", path, json.dumps(body), CHARGE)
        r = c.getresponse()
        r.read()
        return r.status
    except (OSError, http.client.HTTPException):
        return 0
    finally:
        c.close()


def charge(out, urls, rnd, accounts, n, workers):
    ids = ["%s-%d" % (rnd, i) for i in range(n)]
    lock = threading.Lock()
    results = []
    deadline = time.monotonic() + 120

    def work(k):
        for i in range(k, n, workers):
            acct = accounts[i % len(accounts)]
            path = "/v1/accounts/%s/quotas/print.pages/charges" % acct
            body = {"request_id": ids[i], "amount": 1}
            via = (i + k) % 2
            status = 0
            while time.monotonic() < deadline:
                status = post(urls[via], path, body, 10)
                if status in FINAL:
                    break
                via = 1 - via
                time.sleep(0.05 + random.random() * 0.1)
            with lock:
                results.append("%s %s %d" % (ids[i], acct, status))

    ts = [threading.Thread(target=work, args=(k,)) for k in range(workers)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    with open(out, "w") as f:
        f.write("\n".join(results) + "\n")


def ldif(url, base):
    """The entries under base as a list of dicts of value lists."""
    p = subprocess.run(["ldapsearch", "-x", "-LLL", "-o", "ldif-wrap=no", "-H", url,
                        "-D", "cn=admin,dc=example,dc=edu", "-w", "secret", "-b", base,
                        "(|(objectClass=privUsage)(objectClass=privLedgerSegment))",
                        "privUsed", "privEntry", "privSegments"],
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


def ledger(url, acct):
    """privUsed and the charge ids (with how often each is there) of acct."""
    base = "uid=%s,ou=usage,ou=privileges,dc=example,dc=edu" % acct
    used, nseg, ids, segs = 0, 0, {}, {}
    for e in ldif(url, base):
        dn = e["dn"][0]
        vals = e.get("privEntry", [])
        if dn.startswith("cn=print.pages@"):
            used = int(e.get("privUsed", ["0"])[0])
            nseg = int(e.get("privSegments", ["0"])[0])
            where = "window"
        else:
            where = int(dn.split(",")[0][3:])
            segs[where] = vals
            continue
        for v in vals:
            j = json.loads(v)
            if j.get("kind") == "charge":
                ids.setdefault(j["id"], []).append(where)
    # segments numbered above privSegments are a move not yet committed:
    # their entries are still in the window (archive.h)
    for k, vals in segs.items():
        if k > nseg:
            continue
        for v in vals:
            j = json.loads(v)
            if j.get("kind") == "charge":
                ids.setdefault(j["id"], []).append(k)
    return used, ids


def check(out, limit, urls, accounts):
    answered = {}
    for line in open(out):
        rid, acct, status = line.split()
        if status in ("200", "201"):
            answered[rid] = acct
    counts = {"answered": len(answered), "lost": 0, "double": 0, "counter": 0,
              "diverged": 0, "over": 0, "unanswered": 0}
    counts["unanswered"] = sum(1 for line in open(out) if line.split()[2] not in
                               ("200", "201", "409"))
    for acct in accounts:
        views = [ledger(u, acct) for u in urls]
        mine = {r for r, a in answered.items() if a == acct}
        for used, ids in views:
            counts["lost"] += len(mine - ids.keys())
            counts["double"] += sum(1 for w in ids.values() if len(w) > 1)
            if used != len(ids):
                counts["counter"] += 1
        if views[0][0] != views[1][0] or views[0][1].keys() != views[1][1].keys():
            counts["diverged"] += 1
        counts["over"] += max(0, max(v[0] for v in views) - limit)
    print(json.dumps(counts, sort_keys=True))


def main():
    if sys.argv[1] == "charge":
        out, u1, u2, rnd, accts, n, workers = sys.argv[2:9]
        charge(out, [u1, u2], rnd, accts.split(","), int(n), int(workers))
    elif sys.argv[1] == "check":
        out, limit, l1, l2 = sys.argv[2:6]
        check(out, int(limit), [l1, l2], sys.argv[6:])
    else:
        raise SystemExit("usage: jepsen.py charge|check ...")


if __name__ == "__main__":
    main()
