#!/usr/bin/env bash
# cups.sh - the CUPS backend against real processes: a private cupsd whose
# ServerBin holds privd-cups beside CUPS's own backends, ippeveprinter as an
# IPP Everywhere printer that keeps what it gets, a socket listener as a
# PostScript printer, and slapd + privd (env.sh). Jobs go in with lp; each
# case asserts the job's end state and message, what the printer got, the
# ledger and the usage. Run as root (cupsd runs the 0700 backend as root).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
PRIVCUPS=${PRIVCUPS_BIN:-client/cups/privd-cups}
PRIVCTL=${PRIVCTL_BIN:-client/privctl}
case $PRIVCUPS in /*) ;; *) PRIVCUPS=$top/$PRIVCUPS ;; esac
case $PRIVCTL in /*) ;; *) PRIVCTL=$top/$PRIVCTL ;; esac
. tests/integration/lib.sh
. tests/integration/cupsd.sh

if [ "$(id -u)" != 0 ]; then
	echo "cups.sh: skipped: cupsd runs a 0700 backend as root only; run as root" >&2
	exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-cups.XXXXXX")
chmod 755 "$dir"	# lp runs the filters and must reach the spool
cleanup() {
	cups_stop "$dir"
	tests/integration/env.sh stop "$dir/env" >/dev/null 2>&1 || true
	sleep 0.2
	[ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
fail() {
	echo "cups.sh: $*" >&2
	[ -f "$dir/log/error_log" ] && grep -E "privd|Job .*(exited|stopped|canceled)" \
		"$dir/log/error_log" | grep -v 'envp\|argv\|ATTR' | tail -25 >&2
	exit 1
}

# --- privd and its model
tests/integration/env.sh start "$dir/env" >/dev/null
HP=$(cat "$dir/env/http_port")
U=http://127.0.0.1:$HP
RK='Authorization: Bearer dev-read-4d1c8e27b9'
cat > "$dir/model.yaml" <<'EOF'
reasons:
  staff: { academic: {} }
  student: { undergrad: {} }
  visitor: {}
organisations:
  engineering: { cse: {} }
  science: {}
grants:
  "@engineering":
    printer.access: [+eng-laser, +eng-ps, +eng-colour]
  "staff@engineering":
    print.pages: 100
    print.colour: true
    print.colour_pages: 10
    print.balance: 10000        # $100.00
  "student@engineering":
    print.pages: 10
    print.balance: 100          # $1.00
printers:                       # eng-colour is priced; the others count pages
  eng-colour:
    charge: print.balance
    price: { mono: 10, colour: 40, duplex_mono: 7, duplex_colour: 35, job: 0 }
    media: { A3: 2, legal: 2 }     # ippeveprinter has no A3: legal stands in
pools:                          # the students' shared budget
  "student@engineering": { print.pages: 20 }
accounts:
  alice: [staff/academic@engineering/cse]
  bob: [student/undergrad@engineering/cse]
  carol: [visitor@science]
EOF
curl -sf -H 'Authorization: Bearer dev-admin-5be71f0a48' --data-binary @"$dir/model.yaml" \
	"$U/v1/import" > /dev/null || fail "the import failed"
printf 'dev-charge-93fa06d2c1\n' > "$dir/cups.key"
chmod 600 "$dir/cups.key"
cat > "$dir/cups.yaml" <<EOF
# the backend's settings (deploy/cups/README.md)
urls: [http://127.0.0.1:$(free_port), $U]   # the first is down: the second answers
key_file: $dir/cups.key
timeout_ms: 3000
host: testhost
queues:
  eng-laser: {}
  office: { access: office-colour }
  eng-fb: { access: eng-laser, fallback: pools }
  eng-colour: {}
EOF
cp "$dir/cups.yaml" "$dir/cups.yaml.good"
"$PRIVCUPS" --check-config "$dir/cups.yaml" > "$dir/check.out" 2>&1 ||
	fail "--check-config refused a good file: $(cat "$dir/check.out")"

# --- the printers and cupsd (cupsd.sh)
cups_start "$dir" "$PRIVCUPS" "$dir/cups.yaml"
cups_queue eng-laser
cups_queue office
cups_queue eng-fb
cups_queue eng-colour
lpadmin -h "$H" -p eng-ps -E -v "privd:/socket://127.0.0.1:$SP" \
	-m drv:///sample.drv/generic.ppd -o print-color-mode-default=monochrome 2>/dev/null ||
	fail "lpadmin eng-ps"
lpstat -h "$H" -v eng-laser | grep -q "privd:/ipp://" || fail "eng-laser is not wrapped"

# --- documents: PDFs of 1, 3 and 12 pages, a 3-page PostScript file
for n in 1 3 12; do
	gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile="$dir/p$n.pdf" \
		-c "1 1 $n { /Helvetica findfont 24 scalefont setfont 72 700 moveto (Page) show showpage pop } for"
	[ "$(qpdf --show-npages "$dir/p$n.pdf")" = "$n" ] || fail "p$n.pdf has not $n pages"
done
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=ps2write -sOutputFile="$dir/p3.ps" "$dir/p3.pdf"
# 10 pages of black text, pages 2, 5 and 9 with a red box; 3 pages with a grey
# box drawn in RGB, as office documents draw grey
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile="$dir/mix10.pdf" -c "1 1 10 {
	dup 2 eq 1 index 5 eq or 1 index 9 eq or { 1 0 0 setrgbcolor 100 100 200 200 rectfill } if
	0 setgray /Helvetica findfont 24 scalefont setfont 72 700 moveto (Page) show showpage pop } for"
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile="$dir/grey3.pdf" -c "1 1 3 {
	0.5 0.5 0.5 setrgbcolor 100 100 200 200 rectfill 0 setgray /Helvetica findfont 24 scalefont setfont
	72 700 moveto (Grey) show showpage pop } for"
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=ps2write -sOutputFile="$dir/mix10.ps" "$dir/mix10.pdf"
printf 'line one\nline two\n' > "$dir/note.txt"

cat > "$dir/job.test" <<'EOF'
{
	OPERATION Get-Job-Attributes
	GROUP operation-attributes-tag
	ATTR charset attributes-charset utf-8
	ATTR naturalLanguage attributes-natural-language en
	ATTR uri printer-uri $uri
	ATTR integer job-id $job_id
	ATTR name requesting-user-name root
	ATTR keyword requested-attributes job-state,job-printer-state-message
	DISPLAY job-state
	DISPLAY job-printer-state-message
}
EOF
sed 's/requesting-user-name root/requesting-user-name eve/' "$dir/job.test" > "$dir/job-eve.test"
# job ID [TEST]: "STATE,MESSAGE" as ipptool asks (unauthenticated: the message, which
# JobPrivateValues keeps for the owner and operators, comes back empty)
job_attrs() {
	ipptool -c -d job_id="$1" "ipp://$H/printers/eng-laser" "$dir/${2:-job}.test" \
		2>/dev/null | sed -n 2p
}
# job ID: the job's last state message, as the operator reads it in cupsd's log
job_message() {
	grep -aF "[Job $1] Set job-printer-state-message to" "$dir/log/error_log" | tail -1 |
		sed 's/.*Set job-printer-state-message to "//; s/", current level=.*//'
}
job_state() { job_attrs "$1" | cut -d, -f1; }
job_ended() { case $(job_state "$1") in completed|canceled|aborted) return 0 ;; esac; return 1; }
submit() {	# QUEUE USER FILE [lp options]: prints the job id
	local q=$1 u=$2 f=$3 out
	shift 3
	out=$(lp -h "$H" -d "$q" -U "$u" "$@" "$f") || fail "lp -d $q -U $u $f failed"
	echo "${out#request id is $q-}" | cut -d' ' -f1
}
expect_end() {	# JOB STATE [MESSAGE]
	wait_for "job $1 to end" 600 job_ended "$1"
	local a m
	a=$(job_attrs "$1")
	m=$(job_message "$1")
	[ "${a%%,*}" = "$2" ] || fail "job $1 ended '$a', not $2"
	[ -z "${3:-}" ] || case $m in *"$3"*) ;; *) fail "job $1: message '$m' does not say '$3'" ;; esac
}
usage() {	# USER QUOTA: "used held"
	curl -sf -H "$RK" "$U/v1/accounts/$1/quotas/$2" | jq -r '"\(.used) \(.held)"'
}
ledger() { curl -sf -H "$RK" "$U/v1/accounts/$1/quotas/$2/ledger?limit=1000"; }
commits() {	# USER QUOTA JOB: how many commits carry that job's metadata
	ledger "$1" "$2" | jq --arg j "$3" '[.entries[] | select(.kind == "commit" and .metadata.job == $j)] | length'
}
received() { find "$dir/out" -name '*.pdf' | wc -l; }

# --- printed: one commit of pages x copies with its metadata; the printer has it
j=$(submit eng-laser alice "$dir/p3.pdf" -t "three pages")
expect_end "$j" completed
[ "$(commits alice print.pages "$j")" = 1 ] || fail "job $j: not one commit: $(ledger alice print.pages)"
ledger alice print.pages | jq -e --arg j "$j" '.entries[] | select(.kind == "commit" and
	.metadata.job == $j) | select(.amount == 3 and .metadata.pages == 3 and .metadata.copies == 1
	and .metadata.queue == "eng-laser" and .metadata.title == "three pages"
	and .metadata.colour == false and .request_id == "cups:testhost:eng-laser:\($j)")' >/dev/null ||
	fail "job $j: the commit is not 3 pages with its metadata: $(ledger alice print.pages)"
[ "$(received)" = 1 ] || fail "the printer did not receive job $j"
[ "$(usage alice print.pages)" = "3 0" ] || fail "alice's usage is $(usage alice print.pages), not 3 0"
grep -q "^eng-laser alice $j .* total 3 " "$dir/log/page_log" || fail "page_log does not say total 3"

j=$(submit eng-laser alice "$dir/p3.pdf" -n 2)
expect_end "$j" completed
ledger alice print.pages | jq -e --arg j "$j" '.entries[] | select(.kind == "commit" and
	.metadata.job == $j and .amount == 6 and .metadata.copies == 2)' >/dev/null ||
	fail "job $j (-n 2): not charged 6: $(ledger alice print.pages)"
grep -q "^eng-laser alice $j .* total 6 " "$dir/log/page_log" || fail "page_log does not say total 6"
[ "$(usage alice print.pages)" = "9 0" ] || fail "alice's usage is $(usage alice print.pages), not 9 0"

j=$(submit eng-laser alice "$dir/p1.pdf" -o print-color-mode=color)
expect_end "$j" completed
[ "$(usage alice print.colour_pages)" = "1 0" ] || fail "colour job $j: colour usage $(usage alice print.colour_pages)"
[ "$(usage alice print.pages)" = "9 0" ] || fail "colour job $j was charged on print.pages too"

j=$(submit eng-ps alice "$dir/p3.ps" -n 2)
expect_end "$j" completed
ledger alice print.pages | jq -e --arg j "$j" '.entries[] | select(.kind == "commit" and
	.metadata.job == $j and .amount == 6 and .metadata.queue == "eng-ps")' >/dev/null ||
	fail "PostScript job $j: not charged 6 pages: $(ledger alice print.pages)"
[ "$(cat "$dir"/ps/job.* | grep -ac '^%%Page:')" -ge 3 ] || fail "the socket printer did not get the PostScript"
grep -q "^eng-ps alice $j .* total 6 " "$dir/log/page_log" || fail "page_log does not say total 6 for eng-ps"
echo "cups.sh: printed PDF (1 and 2 copies), colour and PostScript: one commit each, amounts and page_log agree"

# --- refusals: cancelled with the reason, nothing printed, usage unchanged
before=$(received)
j=$(submit eng-laser bob "$dir/p12.pdf")
expect_end "$j" canceled "print quota exceeded: this job needs 12 pages, bob has 10 left in 2026T3"
refused=$j
# the refusal's numbers are bob's and the operators': the printer's public state, the
# job as another person asks for it, and the CUPS web page say nothing of bob's balance
lpstat -h "$H" -U eve -l -p eng-laser > "$dir/public" 2>&1
lpstat -h "$H" -U eve -l -o eng-laser >> "$dir/public" 2>&1 || true
curl -s "http://$H/printers/eng-laser" >> "$dir/public"
curl -s "http://$H/jobs?which_jobs=all" >> "$dir/public"
job_attrs "$j" job-eve | tee -a "$dir/public" | grep -q '^canceled' || fail "eve's Get-Job-Attributes failed"
grep -q "canceled" "$dir/public" || fail "eve cannot see that a job was cancelled: $(cat "$dir/public")"
! grep -qE "bob has|10 left|needs 12" "$dir/public" || fail "another user reads bob's refusal: $(grep -E 'bob has|10 left|needs 12' "$dir/public")"
j=$(submit office alice "$dir/p1.pdf")
expect_end "$j" canceled "privd: alice may not print on office"
j=$(submit eng-laser bob "$dir/p1.pdf" -o print-color-mode=color)
expect_end "$j" canceled "privd: bob may not print in colour on eng-laser"
j=$(submit eng-laser carol "$dir/p1.pdf")
expect_end "$j" canceled "privd: carol may not print on eng-laser"
[ "$(received)" = "$before" ] || fail "a refused job reached the printer"
[ "$(usage bob print.pages)" = "0 0" ] || fail "bob's usage is $(usage bob print.pages) after refusals"
[ "$(usage alice print.pages)" = "15 0" ] || fail "alice's usage moved on a refusal: $(usage alice print.pages)"
# page_log counts what printed: a refused job is total 0, not its pages
grep -q "^eng-laser bob $refused .* total 0 " "$dir/log/page_log" ||
	fail "page_log counts the refused job $refused: $(grep "bob $refused " "$dir/log/page_log")"
echo "cups.sh: over quota, denied queue, colour without the flag, no access: cancelled with the reason, nothing printed, page_log total 0"

# --- pools: -o privd-pool charges the pool for the user; a queue with
# fallback: pools takes what the user's own quota cannot from their pool
pool_usage() {
	curl -sf -H "$RK" "$U/v1/pools/student@engineering/quotas/print.pages" | jq -r '"\(.used) \(.held)"'
}
j=$(submit eng-laser bob "$dir/p3.pdf" -o privd-pool=student@engineering)
expect_end "$j" completed
[ "$(pool_usage)" = "3 0" ] || fail "job $j: the pool's usage is $(pool_usage), not 3 0"
[ "$(usage bob print.pages)" = "0 0" ] || fail "job $j on the pool charged bob: $(usage bob print.pages)"
curl -sf -H "$RK" "$U/v1/pools/student@engineering/quotas/print.pages/ledger" | jq -e --arg j "$j" \
	'.entries[] | select(.kind == "commit" and .metadata.job == $j and .amount == 3)' >/dev/null &&
curl -sf -H "$RK" "$U/v1/pools/student@engineering/quotas/print.pages/ledger" | jq -e --arg j "$j" \
	'.entries[] | select(.kind == "hold" and .metadata.job == $j and .account == "bob")' >/dev/null ||
	fail "job $j: the pool's ledger lacks bob's hold and its commit"
before=$(received)
j=$(submit eng-laser alice "$dir/p1.pdf" -o privd-pool=student@engineering)
expect_end "$j" canceled "may not draw on the print.pages pool of student@engineering"
[ "$(received)" = "$before" ] || fail "alice's job on a pool she may not draw on printed"
# bob has 10 of his own; 12 pages go whole to the pool
j=$(submit eng-fb bob "$dir/p12.pdf")
expect_end "$j" completed
[ "$(pool_usage)" = "15 0" ] || fail "job $j (fallback): the pool's usage is $(pool_usage), not 15 0"
[ "$(usage bob print.pages)" = "0 0" ] || fail "job $j (fallback) charged bob: $(usage bob print.pages)"
j=$(submit eng-fb bob "$dir/p3.pdf")
expect_end "$j" completed
[ "$(usage bob print.pages)" = "3 0" ] || fail "job $j (fits bob's own) is not on bob: $(usage bob print.pages)"
[ "$(pool_usage)" = "15 0" ] || fail "job $j (fits bob's own) moved the pool: $(pool_usage)"
j=$(submit eng-fb bob "$dir/p12.pdf")
expect_end "$j" canceled "print quota exceeded"
[ "$(pool_usage)" = "15 0" ] && [ "$(usage bob print.pages)" = "3 0" ] ||
	fail "a job that fits neither moved usage: pool $(pool_usage), bob $(usage bob print.pages)"
echo "cups.sh: pools: privd-pool charged the pool for bob, refused alice; fallback took 12 from the pool, 3 from bob, refused 12 more"

# --- a priced queue: privd prices the job from eng-colour's rate card; colour
# counted page by page (rendered by gs), sides, copies and media as the card says
balance() { usage "$1" print.balance | cut -d' ' -f1; }
last_cost() {	# USER JOB: the amount of that job's commit on print.balance
	ledger "$1" print.balance | jq -r --arg j "$2" \
		'[.entries[] | select(.kind == "commit" and .metadata.job == $j)] | .[0].amount'
}
quote=$(curl -sf -H "$RK" -d '{"job":{"printer":"eng-colour","pages":{"mono":7,"colour":3}}}' \
	"$U/v1/accounts/alice/quotes" | jq -r .cost)
[ "$quote" = 190 ] || fail "the quote for 7 mono + 3 colour is $quote, not 190"
j=$(submit eng-colour alice "$dir/mix10.pdf" -o print-color-mode=color)
expect_end "$j" completed
# what the user is shown while it ends (cupsd clears it once completed)
grep -qF "[Job $j] Set job-printer-state-message to \"privd: \$1.90 charged to print.balance, \$98.10 left\"" \
	"$dir/log/error_log" || fail "job $j: the user was not shown its cost and balance"
[ "$(last_cost alice "$j")" = "$quote" ] || fail "job $j: charged $(last_cost alice "$j"), the quote was $quote"
ledger alice print.balance | jq -e --arg j "$j" '.entries[] | select(.kind == "commit" and
	.metadata.job == $j) | select(.metadata.price.colour_sides == 3 and
	.metadata.price.mono_sides == 7)' >/dev/null ||
	fail "job $j: the ledger lacks the breakdown: $(ledger alice print.balance)"
[ "$(usage alice print.pages)" = "15 0" ] || fail "the priced job moved print.pages: $(usage alice print.pages)"
grep -q "^eng-colour alice $j .* total 10 " "$dir/log/page_log" || fail "page_log does not say total 10 for $j"
priced() {	# WHAT COST FILE [lp options]: alice's job on eng-colour costs COST
	local what=$1 cost=$2 f=$3 j
	shift 3
	j=$(submit eng-colour alice "$f" "$@")
	expect_end "$j" completed
	[ "$(last_cost alice "$j")" = "$cost" ] ||
		fail "$what job $j: charged $(last_cost alice "$j"), not $cost"
}
used=$(balance alice)
priced "duplex, 2 copies, legal" $((2 * (7 * 7 + 3 * 35) * 2)) "$dir/mix10.pdf" \
	-o print-color-mode=color -o sides=two-sided-long-edge -n 2 -o media=na_legal_8.5x14in
# N-up as the filters applied it: 5 sides, pages 1+2, 5+6 and 9+10 carry colour
priced 2-up $((3 * 40 + 2 * 10)) "$dir/mix10.pdf" -o print-color-mode=color -o number-up=2
priced "grey, on the colour queue," 30 "$dir/grey3.pdf" -o print-color-mode=color
priced mono 100 "$dir/mix10.pdf" -o print-color-mode=monochrome
priced PostScript 190 "$dir/mix10.ps" -o print-color-mode=color
priced text 10 "$dir/note.txt" -o print-color-mode=color
[ "$(balance alice)" = $((used + 616 + 140 + 30 + 100 + 190 + 10)) ] || fail "alice's balance used is $(balance alice)"
before=$(received)
j=$(submit eng-colour bob "$dir/p12.pdf")
expect_end "$j" canceled 'this job costs $1.20, bob has $1.00 left'
[ "$(received)" = "$before" ] || fail "bob's job over his balance printed"
[ "$(balance bob)" = 0 ] || fail "bob's refused job moved his balance: $(balance bob)"
echo "cups.sh: priced queue: 7 mono + 3 colour sides at the card (quote = charge), duplex x2 on legal paper, 2-up, grey, mono, PostScript and text jobs as the card says, over balance refused with cost and balance"

# --- privd stopped while jobs are queued: they wait, then print, charged once each
kill "$(cat "$dir/env/privd.pid")"
wait_for "privd to stop" 100 not port_open "$HP"
before=$(received)
j1=$(submit eng-laser alice "$dir/p1.pdf")
j2=$(submit eng-laser alice "$dir/p3.pdf")
wait_for "job $j2 to be retried" 300 grep -q "\[Job $j2\] privd: .*cupsd will try the job again" "$dir/log/error_log"
sleep 2
[ "$(received)" = "$before" ] || fail "a job printed while privd was down"
case $(job_state "$j1") in pending|pending-held|processing) ;; *) fail "job $j1 is $(job_state "$j1") while privd is down" ;; esac
tests/integration/env.sh privd-start "$dir/env"
expect_end "$j1" completed
expect_end "$j2" completed
[ "$(commits alice print.pages "$j1")" = 1 ] && [ "$(commits alice print.pages "$j2")" = 1 ] ||
	fail "jobs $j1 $j2 are not charged once each: $(ledger alice print.pages)"
[ "$(usage alice print.pages)" = "19 0" ] || fail "alice's usage is $(usage alice print.pages), not 19 0"
[ "$(received)" = $((before + 2)) ] || fail "jobs $j1 $j2 did not both print"
echo "cups.sh: privd down: jobs waited, then printed and were charged once each"

# --- the printer stopped: the hold is released, the retried job charged once
kill "$ipp_pid"
wait_for "ippeveprinter to stop" 100 not port_open "$IP"
before=$(received)
j=$(submit eng-laser alice "$dir/p3.pdf")
wait_for "job $j's hold to be released" 300 grep -q "\[Job $j\] privd: job $j did not print" "$dir/log/error_log"
[ "$(usage alice print.pages)" = "19 0" ] || fail "a failed attempt left usage $(usage alice print.pages)"
ipp_start
expect_end "$j" completed
[ "$(commits alice print.pages "$j")" = 1 ] || fail "job $j: not one commit after the retry: $(ledger alice print.pages)"
ledger alice print.pages | jq -e --arg r "cups:testhost:eng-laser:$j" \
	'[.entries[] | select(.kind == "release" and .request_id == $r)] | length == 1' > /dev/null ||
	fail "job $j: the failed attempt's hold was not released: $(ledger alice print.pages)"
[ "$(usage alice print.pages)" = "22 0" ] || fail "alice's usage is $(usage alice print.pages), not 22 0"
[ "$(received)" = $((before + 1)) ] || fail "job $j printed $(( $(received) - before )) times"
echo "cups.sh: printer down: hold released, the retried job printed and was charged once"

# --- configuration faults: the queue stops with the reason, nothing prints uncharged
conf_fault() {	# WHAT MESSAGE: the fault is in place; a job must not print
	local j before used
	before=$(received)
	used=$(usage alice print.pages)
	j=$(submit eng-laser alice "$dir/p1.pdf")
	wait_for "the queue to stop ($1)" 300 sh -c "lpstat -h $H -l -p eng-laser | grep -q 'disabled'"
	lpstat -h "$H" -l -p eng-laser | grep -qF -- "$2" ||
		fail "$1: the queue does not say '$2': $(lpstat -h "$H" -l -p eng-laser)"
	[ "$(received)" = "$before" ] || fail "$1: the job printed"
	[ "$(usage alice print.pages)" = "$used" ] || fail "$1: usage moved: $(usage alice print.pages)"
	cp "$dir/cups.yaml.good" "$dir/cups.yaml"
	printf 'dev-charge-93fa06d2c1\n' > "$dir/cups.key"
	chmod 600 "$dir/cups.key"
	cupsenable -h "$H" eng-laser
	expect_end "$j" completed
}
printf 'urls: [http://127.0.0.1:%s]\nkey_file: %s/cups.key\nqueues:\n  eng-laser: { unreachable: sometimes }\n' \
	"$HP" "$dir" > "$dir/cups.yaml"
conf_fault "a config error" "cups.yaml:4: unreachable: 'sometimes' is not retry, hold or allow"
rm "$dir/cups.key"
conf_fault "a missing key file" "key file $dir/cups.key: No such file or directory"
chmod 644 "$dir/cups.key"
conf_fault "a world-readable key file" "key file $dir/cups.key: mode 0644 lets others read"
[ "$(usage alice print.pages)" = "25 0" ] || fail "the released jobs were not charged: $(usage alice print.pages)"
echo "cups.sh: config error, missing key file, readable key file: queue stopped with the reason, job printed once fixed"

# --- privctl ledger lists the jobs
PRIVD_URL=$U PRIVD_KEY=dev-read-4d1c8e27b9 "$PRIVCTL" ledger alice print.pages > "$dir/ledger.out" ||
	fail "privctl ledger failed"
[ "$(grep -c 'cups:testhost:eng-laser:' "$dir/ledger.out")" -ge 8 ] ||
	fail "privctl ledger does not list the jobs: $(cat "$dir/ledger.out")"
grep -q 'cups:testhost:eng-ps:' "$dir/ledger.out" || fail "privctl ledger does not list the PostScript job"

# a sanitizer build reports into cupsd's log
if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$dir/log/error_log"; then
	grep -E -A20 "Sanitizer|runtime error:" "$dir/log/error_log" | head -40 >&2
	fail "the backend's sanitizers reported"
fi
echo "cups.sh: privctl ledger lists the jobs; all CUPS cases passed"
