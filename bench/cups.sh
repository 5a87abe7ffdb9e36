#!/usr/bin/env bash
# cups.sh - jobs per second through cupsd to ippeveprinter: a queue wrapped
# in the privd backend against a queue on the same printer without it, in
# turns, N one-page PDFs a turn. Prints "WRAPPED DIRECT" (jobs/s).
#   bench/cups.sh PRIVD_URL CHARGE_KEY ACCOUNT BACKEND [N [colour]]
# The account needs printer.access element "wrapped" and print.pages to spare.
# With colour: 20-page PDFs, 3 pages in 10 with colour, printed in colour on
# a queue whose printer ("priced") has a rate card: each page is classified
# and privd prices the job; the account needs print.colour, printer.access
# "priced" and money to spare on the card's quota.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
url=$1 key=$2 user=$3 backend=$4 n=${5:-20} mode=${6:-pages}
case $backend in /*) ;; *) backend=$top/$backend ;; esac
. tests/integration/lib.sh
. tests/integration/cupsd.sh
fail() { echo "bench/cups.sh: $*" >&2; exit 1; }
dir=$(mktemp -d /tmp/privd-bcups.XXXXXX)
chmod 755 "$dir"
trap 'cups_stop "$dir"; sleep 0.2; rm -rf "$dir"' EXIT
printf '%s\n' "$key" > "$dir/key"
chmod 600 "$dir/key"
printf 'urls: [%s]\nkey_file: %s/key\nhost: bench\n' "$url" "$dir" > "$dir/cups.yaml"
[ "$mode" = colour ] && printf 'queues:\n  wrapped: { access: priced }\n' >> "$dir/cups.yaml"
CUPS_LOGLEVEL=warn cups_start "$dir" "$backend" "$dir/cups.yaml"
cups_queue wrapped
cups_queue direct direct
opts=()
if [ "$mode" = colour ]; then
	gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile="$dir/p1.pdf" -c "1 1 20 {
		dup 10 mod 3 lt { 0 0.6 0 setrgbcolor 100 100 300 300 rectfill } if 0 setgray
		/Helvetica findfont 24 scalefont setfont 72 700 moveto (Page) show showpage pop } for"
	opts=(-o print-color-mode=color)
else
	gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile="$dir/p1.pdf" \
		-c "/Helvetica findfont 24 scalefont setfont 72 700 moveto (Page) show showpage"
fi
idle() { [ -z "$(lpstat -h "$H" -o "$1" 2>/dev/null)" ]; }
turn() {	# QUEUE: seconds for n jobs, submitted at once, until all are done
	local t0 i
	t0=$(date +%s.%N)
	for ((i = 0; i < n; i++)); do
		lp -h "$H" -d "$1" -U "$user" "${opts[@]}" "$dir/p1.pdf" > /dev/null
	done
	wait_for "queue $1 to empty" 6000 idle "$1"
	echo "$(date +%s.%N) $t0" | awk '{ printf "%.3f", $1 - $2 }'
}
turn wrapped > /dev/null	# warm: PPD caches, first connections
tw=0 td=0
# in turns, each order once: neither queue always runs on a warmer machine
for q in direct wrapped wrapped direct; do
	t=$(turn "$q")
	if [ "$q" = direct ]; then td=$(echo "$td $t" | awk '{ print $1 + $2 }')
	else tw=$(echo "$tw $t" | awk '{ print $1 + $2 }'); fi
done
done_jobs=$(find "$dir/out" -name '*.pdf' | wc -l)
[ "$done_jobs" = $((5 * n)) ] || fail "the printer got $done_jobs jobs, not $((5 * n))"
echo "$n $tw $td" | awk '{ printf "%.2f %.2f\n", 2 * $1 / $2, 2 * $1 / $3 }'
