# cupsd.sh - a private print system for the CUPS tests and make bench
# (sourced, after lib.sh): ippeveprinter as an IPP Everywhere printer that
# keeps each job in DIR/out, a socket printer that keeps each job in
# DIR/ps, and cupsd on loopback with DIR's own ServerRoot, spool, state,
# cache and logs, whose ServerBin holds the privd backend beside CUPS's own.
# Sets H (cupsd's host:port), IP (the IPP printer's port), SP (the socket's).
# Nothing outside DIR changes. DIR must be traversable by user lp.

cups_pids=()

# ippeveprinter on $IP; again after it was stopped (same port, same folder)
ipp_start() {
	# -2: it prints two-sided too, so duplex jobs reach it (priced by sides)
	DBUS_SYSTEM_BUS_ADDRESS="unix:path=$cups_dir/bus" ippeveprinter -2 -p "$IP" -n localhost \
		-f application/pdf,image/pwg-raster -d "$cups_dir/out" -k -c /bin/true -r off \
		testprn >> "$cups_dir/log/ipp.log" 2>&1 &
	ipp_pid=$!
	cups_pids+=("$ipp_pid")
	wait_for "ippeveprinter" 100 port_open "$IP"
}

cups_start() {	# DIR BACKEND CONFIG
	local dir=$1 f CP
	cups_dir=$1
	mkdir -p "$dir/out" "$dir/ps" "$dir/log" "$dir/etc" "$dir/spool" "$dir/state" \
		"$dir/cache" "$dir/tmp" "$dir/bin/backend"
	# ippeveprinter needs a D-Bus system bus even without DNS-SD: a private one
	dbus-daemon --session --address="unix:path=$dir/bus" --fork --print-pid > "$dir/dbus.pid"
	IP=$(free_port)
	ipp_start
	SP=$(free_port)
	socat -u "TCP-LISTEN:$SP,bind=127.0.0.1,reuseaddr,fork" \
		SYSTEM:"cat > $dir/ps/job.\$\$" 2>> "$dir/log/socat.log" &
	cups_pids+=($!)
	wait_for "the socket printer" 100 port_open "$SP"

	CP=$(free_port)
	H=127.0.0.1:$CP
	chmod 1777 "$dir/tmp"
	for f in /usr/lib/cups/*; do [ "${f##*/}" = backend ] || ln -s "$f" "$dir/bin/"; done
	for f in /usr/lib/cups/backend/*; do ln -s "$f" "$dir/bin/backend/"; done
	install -m 700 "$2" "$dir/bin/backend/privd"
	cat > "$dir/etc/cups-files.conf" <<EOF
ServerRoot $dir/etc
RequestRoot $dir/spool
StateDir $dir/state
CacheDir $dir/cache
TempDir $dir/tmp
ServerBin $dir/bin
AccessLog $dir/log/access_log
ErrorLog $dir/log/error_log
PageLog $dir/log/page_log
Printcap $dir/printcap
User lp
Group lp
SetEnv PRIVD_CUPS_CONFIG $3
EOF
	cat > "$dir/etc/cupsd.conf" <<EOF
Listen $H
Browsing Off
DefaultAuthType None
LogLevel ${CUPS_LOGLEVEL:-debug}
ErrorPolicy retry-job
JobRetryInterval 1
JobRetryLimit 1000
<Location />
  Order allow,deny
  Allow all
</Location>
<Policy default>
  # deploy/cups/README.md: a refusal's numbers are the job's owner's
  JobPrivateAccess default
  JobPrivateValues default job-printer-state-message
  <Limit All>
    Order deny,allow
  </Limit>
</Policy>
EOF
	/usr/sbin/cupsd -f -c "$dir/etc/cupsd.conf" -s "$dir/etc/cups-files.conf" \
		> "$dir/log/cupsd.out" 2>&1 &
	cups_pids+=($!)
	wait_for "cupsd" 100 port_open "$CP"
}

# an IPP Everywhere queue on the ipp printer; wrapped in privd:/ unless "direct".
# -m everywhere needs the printer's own URI: wrap it afterwards (the PPD stays)
cups_queue() {	# NAME [direct]
	lpadmin -h "$H" -p "$1" -E -v "ipp://localhost:$IP/ipp/print" -m everywhere ||
		fail "lpadmin $1"
	[ "${2:-}" = direct ] && return 0
	# page-logging=off: pdftopdf counts no pages; privd-cups's own count
	# (what printed, 0 for a refused job) is what page_log says
	lpadmin -h "$H" -p "$1" -v "privd:/ipp://localhost:$IP/ipp/print?contimeout=2" \
		-o page-logging-default=off || fail "lpadmin $1: privd:/ipp://"
}

cups_stop() {	# DIR
	local p
	for p in "${cups_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -f "$1/dbus.pid" ] && kill "$(cat "$1/dbus.pid")" 2>/dev/null
	return 0
}
